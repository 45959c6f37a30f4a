package org.nmws.service.perfsonar;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The canonical JSON perfSONAR's Logstash hashes into pscheduler.test_checksum
 * (ruby/pscheduler_test_checksum.rb, to_json_c14n): keys sorted by their UTF-16 code units, no
 * white space, and numbers written from their 16 significant digits ("%.15E") with trailing
 * zeros dropped, plainly for exponents -6..20 and as 1e+21 / 1e-7 beyond. Written by hand because
 * no library writes Ruby's number form; strings are escaped as Ruby's to_json does (as Jackson).
 */
final class RubyJson {
    private static final MathContext SIXTEEN = new MathContext(16, RoundingMode.HALF_EVEN);

    private RubyJson() {
    }

    static String canonical(JsonNode node) {
        StringBuilder sb = new StringBuilder();
        write(node, sb);
        return sb.toString();
    }

    private static void write(JsonNode n, StringBuilder sb) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            sb.append("null");
        } else if (n.isTextual()) {
            string(n.textValue(), sb);
        } else if (n.isNumber()) {
            sb.append(number(n.decimalValue()));
        } else if (n.isBoolean()) {
            sb.append(n.booleanValue());
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(n.get(i), sb);
            }
            sb.append(']');
        } else {
            List<String> keys = new ArrayList<>();
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
                keys.add(it.next());
            }
            keys.sort(String::compareTo); // UTF-16 code unit order, as sort_by encode(UTF_16)
            sb.append('{');
            for (int i = 0; i < keys.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                string(keys.get(i), sb);
                sb.append(':');
                write(n.get(keys.get(i)), sb);
            }
            sb.append('}');
        }
    }

    private static void string(String s, StringBuilder sb) {
        sb.append('"').append(JsonStringEncoder.getInstance().quoteAsString(s)).append('"');
    }

    /** A number as to_json_c14n writes it. */
    static String number(BigDecimal v) {
        if (v.signum() == 0) {
            return "0";
        }
        String sign = v.signum() < 0 ? "-" : "";
        BigDecimal r = v.abs().round(SIXTEEN);
        // digits and exponent as "%.15E" gives them: d.ddddddddddddddd E exp
        String digits = r.unscaledValue().toString();
        int exp = digits.length() - 1 - r.scale();
        String fractional = digits.substring(1).replaceAll("0+$", "");
        String integral = digits.substring(0, 1);
        if (exp > 0 && exp < 21) {
            StringBuilder in = new StringBuilder(integral);
            String frac = fractional;
            for (int i = 0; i < exp; i++) {
                in.append(frac.isEmpty() ? '0' : frac.charAt(0));
                frac = frac.isEmpty() ? "" : frac.substring(1);
            }
            return sign + in + (frac.isEmpty() ? "" : "." + frac);
        }
        if (exp == 0) {
            return sign + integral + (fractional.isEmpty() ? "" : "." + fractional);
        }
        if (exp < 0 && exp > -7) {
            return sign + "0." + "0".repeat(-exp - 1) + integral + fractional;
        }
        return sign + integral + (fractional.isEmpty() ? "" : "." + fractional) + "e" + (exp > 0 ? "+" : "") + exp;
    }
}
