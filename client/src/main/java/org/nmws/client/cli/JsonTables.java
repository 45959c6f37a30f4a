package org.nmws.client.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The service's JSON lists (schedules, a schedule's runs, transfer costs) as tables for people.
 * Columns come from the fields the rows carry, known ones first with a header that names their
 * unit; a field the service adds later still shows, after them, under its own name, and a
 * known field no row carries is left out, so a client and a service of different versions
 * still print what there is.
 */
final class JsonTables {
    /** How a known field prints: as it is, as a local time, as bytes or a rate with its unit. */
    enum Kind { PLAIN, TIME, BYTES, MBIT_PER_SECOND }

    /** A known field: its header, and how its value prints. */
    private record Column(String field, String header, Kind kind) {
        static Column of(String field, String header) {
            return new Column(field, header, Kind.PLAIN);
        }

        static Column time(String field, String header) {
            return new Column(field, header, Kind.TIME);
        }
    }

    static final List<Column> SCHEDULES = List.of(Column.of("name", "NAME"), Column.of("characteristic", "CHARACTERISTIC"),
            Column.of("dst", "DST"), Column.of("period", "PERIOD"), Column.of("slip", "SLIP"), Column.of("testClass", "CLASS"),
            Column.of("enabled", "ENABLED"), Column.of("point", "POINT"), Column.time("start", "START"),
            Column.time("end", "END"), Column.of("parameters", "PARAMETERS"));

    /** id, scheduleId and schedule name say nothing to someone who asked for one schedule's runs. */
    static final List<Column> RUNS = List.of(Column.time("planned", "PLANNED"), Column.of("status", "STATUS"),
            Column.time("started", "STARTED"), Column.time("ended", "ENDED"), Column.of("observationId", "RESULT"),
            Column.of("slot", "SLOT"), Column.of("reason", "REASON"));
    static final List<String> RUNS_HIDDEN = List.of("id", "scheduleId", "schedule");

    static final List<Column> COSTS = List.of(Column.of("dst", "DST"), Column.of("src", "SRC"), new Column("bytes", "BYTES", Kind.BYTES),
            Column.of("seconds", "TIME(s)"), new Column("rateMbps", "RATE", Kind.MBIT_PER_SECOND), Column.of("basis", "BASIS"),
            Column.of("rttMs", "RTT(ms)"), Column.of("lossPercent", "LOSS(%)"), Column.of("predictor", "PREDICTOR"),
            Column.of("expectedErrorPercent", "ERROR(%)"), Column.of("samples", "SAMPLES"), Column.of("ageSeconds", "AGE(s)"),
            Column.time("measuredAt", "MEASURED"), Column.of("refreshed", "REFRESHED"), Column.of("note", "NOTE"));

    private JsonTables() {
    }

    static void schedules(JsonNode list, PrintWriter out) {
        print(list, SCHEDULES, List.of(), "no schedules", out);
    }

    static void runs(JsonNode list, PrintWriter out) {
        print(list, RUNS, RUNS_HIDDEN, "no runs yet", out);
    }

    static void costs(JsonNode list, PrintWriter out) {
        print(list, COSTS, List.of(), "no destinations", out);
    }

    static final List<Column> EVIDENCE = List.of(Column.of("name", "EVIDENCE"), Column.of("value", "VALUE"),
            Column.of("units", "UNITS"), Column.of("text", "WHAT"));

    /** A diagnosis: the cause and where, its summary, and the evidence as a table. */
    static void diagnosis(JsonNode d, PrintWriter out) {
        StringBuilder head = new StringBuilder("cause: ").append(d.path("cause").asText("unknown"));
        if (d.hasNonNull("hop")) {
            head.append(" at hop ").append(d.get("hop").asInt());
            if (d.hasNonNull("hopAddress")) {
                head.append(" (").append(d.get("hopAddress").asText()).append(')');
            }
        }
        out.println(head);
        out.println(forThisCli(d.path("summary").asText("")));
        if (d.path("measured").size() > 0) {
            List<String> ran = new ArrayList<>();
            d.get("measured").forEach(m -> ran.add(m.asText()));
            out.println("measured now: " + String.join(", ", ran));
        }
        if (d.path("evidence").size() > 0) {
            out.println();
            print(d.get("evidence"), EVIDENCE, List.of(), "", out);
        }
    }

    /** The service's wording for its HTTP parameter (measure=true) as this CLI's flag (--measure). */
    static String forThisCli(String text) {
        return text.replace("ask with measure=true", "run again with --measure").replace("measure=true", "--measure");
    }

    /** One row per element of an array (a single object is one row). */
    static void print(JsonNode list, List<Column> known, List<String> hidden, String none, PrintWriter out) {
        List<JsonNode> rows = new ArrayList<>();
        if (list.isArray()) {
            list.forEach(rows::add);
        } else if (list.isObject()) {
            rows.add(list);
        }
        if (rows.isEmpty()) {
            out.println(none);
            return;
        }
        Map<String, Column> columns = new LinkedHashMap<>();
        for (Column c : known) {
            if (rows.stream().anyMatch(r -> r.has(c.field()))) {
                columns.put(c.field(), c);
            }
        }
        for (JsonNode r : rows) {
            for (Iterator<String> names = r.fieldNames(); names.hasNext(); ) {
                String f = names.next();
                if (!hidden.contains(f)) {
                    columns.putIfAbsent(f, Column.of(f, f.toUpperCase(java.util.Locale.ROOT)));
                }
            }
        }
        Table t = new Table(columns.values().stream().map(Column::header).toList());
        for (JsonNode r : rows) {
            t.row(columns.values().stream().map(c -> cell(r.get(c.field()), c.kind())).toList());
        }
        t.print(out);
    }

    /**
     * A value as a person reads it: "-" for none, figures to 4 digits, times as local ISO times
     * to the second, bytes and rates with their unit, maps as k=v, the service's "measure=true" as --measure.
     */
    /** Seconds since the epoch when v is a time in the epoch's first minute (a number or ISO text), else null. */
    private static BigDecimal epochSecondsInFirstMinute(JsonNode v) {
        BigDecimal sec;
        if (v.isNumber()) {
            sec = v.decimalValue();
        } else if (v.asText().startsWith("1970-01-01T00:00:")) {
            try {
                Instant t = Instant.parse(v.asText());
                sec = BigDecimal.valueOf(t.getEpochSecond()).add(BigDecimal.valueOf(t.getNano(), 9));
            } catch (DateTimeParseException e) {
                return null;
            }
        } else {
            return null;
        }
        return sec.signum() >= 0 && sec.compareTo(BigDecimal.valueOf(60)) < 0 ? sec : null;
    }

    static String cell(JsonNode v, Kind kind) {
        if (v == null || v.isNull()) {
            return "-";
        }
        if (kind == Kind.BYTES && v.isNumber()) {
            return Values.bytes(v.decimalValue());
        }
        if (kind == Kind.MBIT_PER_SECOND && v.isNumber()) {
            return Values.bitsPerSecond(v.decimalValue().movePointRight(6));
        }
        // the epoch's first minute is no one's time: a mesh group's schedules start at the epoch so
        // that every point's slots line up ("-", as "1970-01-01" read as a start date would be,
        // issue 26), a continuous stream at its phase within the minute, shown as that phase
        if (kind == Kind.TIME) {
            BigDecimal sec = epochSecondsInFirstMinute(v);
            if (sec != null) {
                return sec.signum() == 0 ? "-" : "each minute at :" + (sec.compareTo(BigDecimal.TEN) < 0 ? "0" : "")
                        + sec.stripTrailingZeros().toPlainString();
            }
        }
        if (kind == Kind.TIME && v.isNumber()) {
            return Values.unixTime(v.asText());
        }
        if (v.isIntegralNumber()) {
            return v.asText();
        }
        if (v.isNumber()) {
            return figure(v.decimalValue());
        }
        if (v.isObject()) {
            List<String> kv = new ArrayList<>();
            v.fields().forEachRemaining(e -> kv.add(e.getKey() + "=" + e.getValue().asText()));
            return kv.isEmpty() ? "-" : String.join(",", kv);
        }
        if (v.isArray()) {
            List<String> items = new ArrayList<>();
            v.forEach(i -> items.add(i.asText()));
            return String.join(",", items);
        }
        String s = v.asText();
        return kind == Kind.TIME ? Values.anyTime(s) : forThisCli(s);
    }

    /** 4 significant digits, but never an exponent and never fewer than the whole part's digits. */
    static String figure(BigDecimal d) {
        return Values.plain(d);
    }
}
