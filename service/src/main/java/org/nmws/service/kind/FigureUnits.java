package org.nmws.service.kind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.nmws.service.observation.Unit;

/**
 * The unit of every figure a kind keeps, declared where the kind names its figures: exact
 * names, and patterns for the families a kind numbers (one per hop, step, stream or bin).
 * A figure the table does not name has no unit (a count).
 */
final class FigureUnits {
    private final Map<String, Unit> exact = new HashMap<>();
    private final List<Map.Entry<Pattern, Unit>> families = new ArrayList<>();

    FigureUnits of(Unit unit, String... names) {
        for (String n : names) {
            exact.put(n, unit);
        }
        return this;
    }

    /** A numbered family, e.g. {@code "hop\\d+CapacityMbps"}. */
    FigureUnits family(Unit unit, String regex) {
        families.add(Map.entry(Pattern.compile(regex), unit));
        return this;
    }

    Unit unit(String figure) {
        Unit u = exact.get(figure);
        if (u != null) {
            return u;
        }
        for (Map.Entry<Pattern, Unit> f : families) {
            if (f.getKey().matcher(figure).matches()) {
                return f.getValue();
            }
        }
        return Unit.NONE;
    }
}
