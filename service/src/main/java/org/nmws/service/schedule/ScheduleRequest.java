package org.nmws.service.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.databind.JsonNode;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.measure.TestClass;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Params;

/**
 * A schedule as clients and the configuration describe it; {@link #toSchedule} checks it. The
 * parameters are checked as a test of the characteristic would check them, when it first runs.
 */
public record ScheduleRequest(String characteristic, String dst, Map<String, String> parameters, String period, String slip,
                              String start, String end, String testClass, String point, Boolean enabled, Boolean continuous,
                              JsonNode archives, String src) {

    public ScheduleRequest(String characteristic, String dst, Map<String, String> parameters, String period, String slip,
                           String start, String end, String testClass, String point, Boolean enabled, Boolean continuous) {
        this(characteristic, dst, parameters, period, slip, start, end, testClass, point, enabled, continuous, null, null);
    }

    public ScheduleRequest(String characteristic, String dst, Map<String, String> parameters, String period, String slip,
                           String start, String end, String testClass, String point, Boolean enabled, Boolean continuous,
                           JsonNode archives) {
        this(characteristic, dst, parameters, period, slip, start, end, testClass, point, enabled, continuous, archives, null);
    }

    /** Frames a second of a continuous one-way stream unless its parameters say otherwise (powstream's default). */
    static final String CONTINUOUS_INTERVAL = "0.1";

    public ScheduleRequest(String characteristic, String dst, Map<String, String> parameters, String period, String slip,
                           String start, String end, String testClass, String point, Boolean enabled) {
        this(characteristic, dst, parameters, period, slip, start, end, testClass, point, enabled, null);
    }

    /** The class a characteristic's test runs in by default: its kind's (MeasurementService::testClassOf). */
    public interface Classes {
        TestClass of(Characteristic c, Map<String, String> parameters);
    }

    /**
     * The schedule asked for, with its archives (a JSON array of pScheduler archive specs)
     * checked field by field.
     */
    public Schedule toSchedule(String name, String defaultPoint, Classes classes) {
        List<ArchiveTarget> to = ArchiveTarget.parseAll(archives);
        return schedule(name, defaultPoint, classes).withArchives(to).withSrc(src == null || src.isBlank() ? null : src.trim());
    }

    private Schedule schedule(String name, String defaultPoint, Classes classes) {
        Characteristic c = Characteristic.lookup(characteristic == null ? "" : characteristic).orElseThrow(() ->
                new IllegalArgumentException("characteristic '" + Params.echo(String.valueOf(characteristic)) + "' is not known"));
        if (Boolean.TRUE.equals(continuous)) {
            return continuous(name, defaultPoint, c);
        }
        Duration p = duration("period", period, null);
        return new Schedule(0, name, point == null || point.isBlank() ? defaultPoint : point, c.dottedName(), dst,
                parameters == null ? Map.of() : parameters, p, duration("slip", slip, Duration.ZERO),
                start == null || start.isBlank() ? Instant.EPOCH : org.nmws.service.observation.Times.parse("start", start),
                end == null || end.isBlank() ? null : org.nmws.service.observation.Times.parse("end", end),
                testClass == null || testClass.isBlank() ? classes.of(c, parameters == null ? Map.of() : parameters) : TestClass.parse(testClass),
                enabled == null || enabled);
    }

    /**
     * Continuous background one-way latency, as powstream keeps it: a low-rate stream that
     * never stops, cut into back-to-back one-minute sessions, each kept as one observation
     * (its loss, delay percentiles and both ends' clock error) with its raw frames.
     */
    private Schedule continuous(String name, String defaultPoint, Characteristic c) {
        if (!c.dottedName().equals("path.delay.oneWay") && !c.dottedName().equals("path.loss.oneWay")) {
            throw new IllegalArgumentException("continuous is for one-way delay or loss, not " + c.dottedName());
        }
        Map<String, String> p = new java.util.HashMap<>(parameters == null ? Map.of() : parameters);
        String interval = p.computeIfAbsent("interval", k -> CONTINUOUS_INTERVAL);
        p.putIfAbsent("timeout", "1");
        if (!Params.isDecimal(interval) || Double.parseDouble(interval) <= 0) {
            throw new IllegalArgumentException("continuous: interval must be a positive number of seconds");
        }
        // The session ends (frames, then the timeout for the last) a second before the next minute starts.
        long frames = (long) Math.floor((60 - Double.parseDouble(p.get("timeout")) - 1) / Double.parseDouble(interval));
        if (frames < 1) {
            throw new IllegalArgumentException("continuous: interval and timeout leave no frames in a minute");
        }
        p.put("count", Long.toString(frames));
        String at = point == null || point.isBlank() ? defaultPoint : point;
        return new Schedule(0, name, at, c.dottedName(), dst, p, Duration.ofMinutes(1), Duration.ZERO, phase(at, name), null,
                TestClass.BACKGROUND, enabled == null || enabled);
    }

    /**
     * Where in the minute a continuous schedule's sessions begin: a phase of its own, drawn from
     * the point and the name (the same after any restart or re-read). At the minute's start all
     * together, 300 streams of one point set up at once and began 1.1 s late at the median,
     * past the second their sessions leave between them (bench/continuous.sh).
     */
    static Instant phase(String point, String name) {
        long h = (point + "\n" + name).hashCode(); // fixed by the language: stable across restarts
        return Instant.EPOCH.plusMillis(Math.floorMod(h * 0x9E3779B97F4A7C15L, 60_000L));
    }

    /** An ISO-8601 duration (PT30S) or plain seconds. */
    private static Duration duration(String name, String text, Duration dflt) {
        if (text == null || text.isBlank()) {
            if (dflt == null) {
                throw new IllegalArgumentException(name + " is required (ISO 8601, PT30S, or seconds)");
            }
            return dflt;
        }
        if (Params.isDecimal(text.trim())) {
            return Duration.ofMillis(Math.round(Double.parseDouble(text.trim()) * 1000));
        }
        try {
            return Duration.parse(text.trim());
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException(name + " '" + Params.echo(text) + "' is not a duration (PT30S, or seconds)");
        }
    }

    static ScheduleRequest of(ScheduleProperties.Entry e) {
        return new ScheduleRequest(e.characteristic(), e.dst(), e.parameters(), e.period() == null ? null : e.period().toString(),
                e.slip().toString(), e.start() == null ? null : e.start().toString(), e.end() == null ? null : e.end().toString(),
                e.testClass(), null, e.enabled(), e.continuous(), archivesOf(e));
    }

    private static JsonNode archivesOf(ScheduleProperties.Entry e) {
        if (e.archives() == null || e.archives().isBlank()) {
            return null;
        }
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(e.archives());
        } catch (com.fasterxml.jackson.core.JsonProcessingException bad) {
            throw new IllegalArgumentException("schedule " + e.name() + ": archives is not JSON: " + bad.getOriginalMessage());
        }
    }
}
