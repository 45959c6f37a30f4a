package org.nmws.service.api;

import java.beans.PropertyEditorSupport;
import java.util.regex.Pattern;
import org.nmws.service.observation.Params;
import org.springframework.web.bind.WebDataBinder;

/**
 * Numbers in query parameters and paths as the NMWG parameters take them: ASCII digits only.
 * Spring's own conversion decodes "0x10" and "#10" as hex and reads Arabic-Indic or full-width
 * digits as digits (issue 21); a client that sends those has made a mistake, and hears so (400).
 * An editor, not a converter: the binder falls back to its default editors when a converter
 * refuses, and those take hex.
 */
final class AsciiNumbers extends PropertyEditorSupport {
    private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]{1,19}");

    private final Class<?> type;

    private AsciiNumbers(Class<?> type) {
        this.type = type;
    }

    /** Puts the strict editors on a binder for int, long and double, boxed or not. */
    static void register(WebDataBinder binder) {
        for (Class<?> t : new Class<?>[] {int.class, Integer.class, long.class, Long.class, double.class, Double.class}) {
            binder.registerCustomEditor(t, new AsciiNumbers(t));
        }
    }

    @Override
    public void setAsText(String text) {
        String t = text == null ? "" : text.trim();
        if (t.isEmpty()) {
            setValue(null);
        } else if (type == double.class || type == Double.class) {
            if (!Params.isDecimal(t)) {
                throw new IllegalArgumentException("'" + Params.echo(t) + "' is not a decimal number in ASCII digits");
            }
            double d = Double.parseDouble(t);
            if (Double.isInfinite(d)) {
                throw new IllegalArgumentException("'" + Params.echo(t) + "' is out of range");
            }
            setValue(d);
        } else {
            if (!INTEGER.matcher(t).matches()) {
                throw new IllegalArgumentException("'" + Params.echo(t) + "' is not an integer in ASCII digits");
            }
            long n;
            try {
                n = Long.parseLong(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + Params.echo(t) + "' is out of range", e);
            }
            boolean isInt = type == int.class || type == Integer.class;
            if (isInt && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
                throw new IllegalArgumentException("'" + Params.echo(t) + "' is out of range");
            }
            setValue(isInt ? (Object) (int) n : (Object) n);
        }
    }
}
