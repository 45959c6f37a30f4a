package org.nmws.service.kind;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;
import org.nmws.service.measure.Figure;
import org.nmws.service.observation.Unit;

/**
 * A kind's figures, each named once: its name in the summary, its unit, and where its value
 * comes from. Most come straight from a named field of the engine's result (the record
 * component the engine's packed field is read into; a nested record's field dotted, as
 * {@code "delay.minMs"}), under the summary's name when it differs ({@code "minRtt=minRttMs"}),
 * scaled when the summary's unit differs. The rest are the kind's own rules, declared here
 * with {@link #computed} for their unit and /api/kinds. {@link #summary} builds a result's
 * summary from the table, so adding a figure the engine packs is one line in one place.
 *
 * <p>Field paths are resolved when the table is built: a name the result does not have fails
 * the kind's class initialisation, not a test at run time.
 *
 * @param <R> the engine's result record the figures are read from
 */
final class FigureTable<R extends Record> {
    private final Class<R> result;
    private final Map<String, Unit> exact = new HashMap<>();
    private final List<Map.Entry<Pattern, Unit>> families = new ArrayList<>();
    /** Every figure in declaration order, for /api/kinds. */
    private final List<Figure> declared = new ArrayList<>();
    private final List<Source<R>> sources = new ArrayList<>();

    /** Where one figure (or one family, a figure per row) is read from. */
    /** name: the figure's, or for a family (rows non-null) its prefix, suffix the rest of a row's name. */
    private record Source<R>(String name, String suffix, Method[] path, double scale, Predicate<R> when,
                             Function<R, List<?>> rows, ToIntFunction<Object> index) {
    }

    FigureTable(Class<R> result) {
        this.result = result;
    }

    /** Figures read from the result's fields: "name" for the field of that name, "name=field.path" otherwise. */
    FigureTable<R> of(Unit unit, String... specs) {
        return read(unit, 1, null, specs);
    }

    /** As {@link #of}, the field's value times factor (nanoseconds to microseconds: 1e-3). */
    FigureTable<R> scaled(Unit unit, double factor, String... specs) {
        return read(unit, factor, null, specs);
    }

    /** As {@link #of}, kept only for a result that passes when (a loss onset only after a loss). */
    FigureTable<R> onlyIf(Predicate<R> when, Unit unit, String... specs) {
        return read(unit, 1, when, specs);
    }

    /** Figures the kind works out itself (from several fields, or its parameters): declared for their unit. */
    FigureTable<R> computed(Unit unit, String... names) {
        for (String n : names) {
            declare(n, unit);
        }
        return this;
    }

    /**
     * A figure per row of a list field: "{prefix}{index}{suffix}" read from each row's field
     * (specs "suffix=field"), e.g. {@code each("step", AvailableBandwidthResult::steps, Step.class, null, MBIT_PER_SECOND,
     * "OfferedMbps=offeredMbps")}. index gives a row's number (null: its position from 0).
     */
    <E extends Record> FigureTable<R> each(String prefix, Function<R, List<E>> rows, Class<E> row, ToIntFunction<E> index,
                                           Unit unit, String... specs) {
        for (String spec : specs) {
            String[] nf = split(spec);
            String family = Pattern.quote(prefix) + "\\d+" + Pattern.quote(nf[0]);
            families.add(Map.entry(Pattern.compile(family), unit));
            declared.add(new Figure(prefix + "\\d+" + nf[0], unit, true));
            @SuppressWarnings("unchecked")
            Function<R, List<?>> any = (Function<R, List<?>>) (Function<R, ?>) rows;
            @SuppressWarnings("unchecked")
            ToIntFunction<Object> at = index == null ? null : o -> index.applyAsInt((E) o);
            sources.add(new Source<>(prefix, nf[0], path(row, nf[1]), 1, null, any, at));
        }
        return this;
    }

    /** A numbered family the kind fills itself, e.g. {@code "hop\\d+CapacityMbps"}. */
    FigureTable<R> family(Unit unit, String regex) {
        families.add(Map.entry(Pattern.compile(regex), unit));
        declared.add(new Figure(regex, unit, true));
        return this;
    }

    /** Marks a declared figure as the one heading a grid cell's group for this kind. */
    FigureTable<R> headline(String name, String group, String label) {
        Figure f = declared(name);
        declared.set(declared.indexOf(f), new Figure(name, f.unit(), false, group, label, f.chart(), f.chartLabel()));
        return this;
    }

    /** Marks a declared figure as drawn on a path's chart (rttMs, owdMs, lossPercent, throughputMbps), its series so named. */
    FigureTable<R> chart(String name, String chart, String seriesLabel) {
        Figure f = declared(name);
        declared.set(declared.indexOf(f), new Figure(name, f.unit(), false, f.group(), f.label(), chart, seriesLabel));
        return this;
    }

    private Figure declared(String name) {
        for (Figure f : declared) {
            if (!f.pattern() && f.name().equals(name)) {
                return f;
            }
        }
        throw new IllegalStateException("figure " + name + " is not declared");
    }

    /**
     * The summary of one result: every figure read from its fields, in declaration order, the
     * ones that are not finite (no reply, no estimate) left out. The kind adds its computed ones.
     */
    Map<String, Double> summary(R r) {
        Map<String, Double> s = new LinkedHashMap<>();
        for (Source<R> src : sources) {
            if (src.when() != null && !src.when().test(r)) {
                continue;
            }
            if (src.rows() == null) {
                put(s, src.name(), read(r, src.path()) * src.scale());
                continue;
            }
            List<?> rows = src.rows().apply(r);
            for (int i = 0; i < rows.size(); i++) {
                Object row = rows.get(i);
                int n = src.index() == null ? i : src.index().applyAsInt(row);
                put(s, src.name() + n + src.suffix(), read(row, src.path()) * src.scale());
            }
        }
        return s;
    }

    /** Puts a figure unless it is not finite (NaN: nothing to say; an infinity: a division by nothing). */
    static void put(Map<String, Double> summary, String name, double v) {
        if (Double.isFinite(v)) {
            summary.put(name, v);
        }
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

    /** Whether the table names this figure, exactly or in a family. */
    boolean declares(String figure) {
        return exact.containsKey(figure) || families.stream().anyMatch(f -> f.getKey().matcher(figure).matches());
    }

    private FigureTable<R> read(Unit unit, double scale, Predicate<R> when, String[] specs) {
        for (String spec : specs) {
            String[] nf = split(spec);
            declare(nf[0], unit);
            sources.add(new Source<>(nf[0], null, path(result, nf[1]), scale, when, null, null));
        }
        return this;
    }

    private void declare(String name, Unit unit) {
        if (exact.putIfAbsent(name, unit) != null) {
            throw new IllegalStateException("figure " + name + " is declared twice");
        }
        declared.add(new Figure(name, unit, false));
    }

    private static String[] split(String spec) {
        int eq = spec.indexOf('=');
        return eq < 0 ? new String[] {spec, spec} : new String[] {spec.substring(0, eq), spec.substring(eq + 1)};
    }

    /** The accessors from a record down a dotted path to a number or a boolean. */
    private static Method[] path(Class<?> from, String dotted) {
        String[] names = dotted.split("\\.");
        Method[] path = new Method[names.length];
        Class<?> at = from;
        for (int i = 0; i < names.length; i++) {
            RecordComponent found = null;
            for (RecordComponent c : at.isRecord() ? at.getRecordComponents() : new RecordComponent[0]) {
                if (c.getName().equals(names[i])) {
                    found = c;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException(from.getSimpleName() + " has no field " + dotted);
            }
            path[i] = found.getAccessor();
            at = found.getType();
        }
        if (!(at.isPrimitive() && at != char.class && at != void.class || Number.class.isAssignableFrom(at)
                || at == Boolean.class)) {
            throw new IllegalArgumentException(from.getSimpleName() + "." + dotted + " is " + at.getSimpleName()
                    + ", not a number");
        }
        return path;
    }

    private static double read(Object from, Method[] path) {
        Object v = from;
        try {
            for (Method m : path) {
                v = m.invoke(v);
            }
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + path[path.length - 1].getName() + ": " + e, e);
        }
        return v instanceof Boolean b ? (b ? 1 : 0) : ((Number) v).doubleValue();
    }
}
