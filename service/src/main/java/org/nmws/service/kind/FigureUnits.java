package org.nmws.service.kind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.nmws.service.measure.Figure;
import org.nmws.service.observation.Unit;

/**
 * The unit of every figure a kind keeps, declared where the kind names its figures: exact
 * names, and patterns for the families a kind numbers (one per hop, step, stream or bin).
 * A figure the table does not name has no unit (a count).
 */
final class FigureUnits {
    private final Map<String, Unit> exact = new HashMap<>();
    private final List<Map.Entry<Pattern, Unit>> families = new ArrayList<>();
    /** Every figure in declaration order, for /api/kinds. */
    private final List<Figure> declared = new ArrayList<>();

    FigureUnits of(Unit unit, String... names) {
        for (String n : names) {
            exact.put(n, unit);
            declared.add(new Figure(n, unit, false, null, null));
        }
        return this;
    }

    /** A numbered family, e.g. {@code "hop\\d+CapacityMbps"}. */
    FigureUnits family(Unit unit, String regex) {
        families.add(Map.entry(Pattern.compile(regex), unit));
        declared.add(new Figure(regex, unit, true, null, null));
        return this;
    }

    /** Marks a declared figure as the one heading a grid cell's group for this kind. */
    FigureUnits headline(String name, String group, String label) {
        for (int i = 0; i < declared.size(); i++) {
            Figure f = declared.get(i);
            if (!f.pattern() && f.name().equals(name)) {
                declared.set(i, new Figure(name, f.unit(), false, group, label));
                return this;
            }
        }
        throw new IllegalStateException("headline figure " + name + " is not declared");
    }

    List<Figure> figures() {
        return List.copyOf(declared);
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
