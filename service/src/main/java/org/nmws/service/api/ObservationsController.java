package org.nmws.service.api;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.PageKey;
import org.nmws.service.archive.Series;
import org.nmws.service.archive.SeriesQuery;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.StoredResults;
import org.nmws.service.observation.Times;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * What the dashboard plots beyond /api/results: the stored series (paths), observations of one
 * stored test kind (a latency scan has no characteristic of its own), and one observation with
 * its raw frames and samples as columns. Every answer is bounded: a page of at most
 * nmws.limits.max-answer-frames frames, and the client pages on with offset.
 */
@RestController
class ObservationsController {
    static final int MAX_SERIES = 1000;

    private final Archive archive;
    private final int maxAnswerFrames;
    private final org.nmws.service.schedule.ScheduleStore schedules;

    ObservationsController(Archive archive, NmwsProperties props, org.nmws.service.schedule.ScheduleStore schedules) {
        this.archive = archive;
        this.maxAnswerFrames = props.limits().maxAnswerFrames();
        this.schedules = schedules;
    }

    /** The series the archive holds (any test, path and point), oldest first. */
    @GetMapping(path = "/api/paths", produces = "application/json")
    List<Map<String, Object>> paths(@RequestParam(defaultValue = "200") int limit) {
        within("limit", limit, 1, MAX_SERIES);
        List<Map<String, Object>> out = new ArrayList<>();
        for (Series s : archive.series(new SeriesQuery(null, null, null, Map.of(), limit))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("measurementPoint", s.measurementPoint());
            m.put("test", s.test().key());
            m.put("src", s.subject().src() == null ? null : s.subject().src().host());
            m.put("dst", s.subject().dst().host());
            m.put("parameters", s.parameters());
            m.put("count", s.count());
            m.put("first", s.first().toString());
            m.put("last", s.last().toString());
            out.add(m);
        }
        return out;
    }

    /** Summaries of one stored test kind on a path: the newest {@code limit}, oldest first. */
    @GetMapping(path = "/api/observations", produces = "application/json")
    Map<String, Object> observations(@RequestParam String test, @RequestParam String dst,
                                     @RequestParam(required = false) String src,
                                     @RequestParam(required = false) String from,
                                     @RequestParam(required = false) String to,
                                     @RequestParam(defaultValue = "100") int limit,
                                     @RequestParam(required = false) String before) {
        Characteristic.ProbeTest t = Characteristic.ProbeTest.ofKey(test);
        within("limit", limit, 1, ResultsController.MAX_LIMIT);
        Instant f = from == null || from.isBlank() ? null : Times.parse("from", from);
        Instant e = to == null || to.isBlank() ? null : Times.parse("to", to);
        PageKey key = before == null || before.isBlank() ? null : PageKey.decode(before);
        StoredResults.Found page = new StoredResults(archive).find(
                new ObservationQuery(t, dst, blankToNull(src), f, e, false, limit, null, null, key), o -> { });
        // Which test definition (schedule) kept each result, so a reader draws one line per
        // definition; a result in none was asked for on demand.
        List<org.nmws.service.schedule.Schedule> toDst = schedules.all().stream()
                .filter(sc -> sc.dst().equalsIgnoreCase(dst)).toList();
        Map<Long, String> definitionOf = schedules.definitionsOf(toDst.stream().map(org.nmws.service.schedule.Schedule::id).toList(),
                page.results().stream().map(Observation::id).toList());
        List<Map<String, Object>> results = new ArrayList<>();
        java.util.Set<String> used = new java.util.HashSet<>();
        for (Observation o : page.results()) {
            Map<String, Object> m = summary(o);
            String d = definitionOf.get(o.id());
            m.put("definition", d);
            if (d != null) {
                used.add(d);
            }
            results.add(m);
        }
        List<Map<String, Object>> definitions = new ArrayList<>();
        for (org.nmws.service.schedule.Schedule sc : toDst) {
            if (used.contains(sc.name())) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", sc.name());
                m.put("parameters", sc.parameters());
                m.put("periodSeconds", sc.period().toMillis() / 1000.0);
                m.put("slipSeconds", sc.slip().toMillis() / 1000.0);
                definitions.add(m);
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("test", t.key());
        body.put("dst", dst);
        body.put("definitions", definitions);
        body.put("count", results.size());
        body.put("cut", page.cut());
        if (page.cut()) {
            body.put("before", page.next().encode()); // ask again with before=this for the older page
        }
        body.put("results", results);
        return body;
    }

    /**
     * One observation with frames [offset, offset + limit) as columns, and its samples (TCP_INFO)
     * likewise. Send times are nanoseconds after the observation's start, since epoch nanoseconds
     * do not fit a JavaScript number exactly.
     */
    @GetMapping(path = "/api/observations/{id}", produces = "application/json")
    org.springframework.http.ResponseEntity<Map<String, Object>> observation(@PathVariable long id,
                                                                           @RequestParam(defaultValue = "0") int offset,
                                                                           @RequestParam(required = false) Integer limit) {
        int n = limit == null ? maxAnswerFrames : limit;
        within("limit", n, 1, maxAnswerFrames);
        within("offset", offset, 0, Integer.MAX_VALUE);
        // The archive reads a test's frames whole (up to nmws.limits.max-count) before a page is
        // cut from them: at most two such reads at once, so readers cannot add up the heap.
        boolean admitted;
        try {
            admitted = FULL_READS.tryAcquire(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            admitted = false;
        }
        if (!admitted) {
            return org.springframework.http.ResponseEntity.status(503).header("Retry-After", "5")
                    .body(Map.of("error", "busy reading other tests' frames; try again shortly"));
        }
        try {
            return archive.findById(id, true).map(o -> org.springframework.http.ResponseEntity.ok(full(o, offset, n)))
                    .orElse(org.springframework.http.ResponseEntity.notFound().build());
        } finally {
            FULL_READS.release();
        }
    }

    private static final java.util.concurrent.Semaphore FULL_READS = new java.util.concurrent.Semaphore(2);

    private static Map<String, Object> full(Observation o, int offset, int limit) {
        Map<String, Object> m = summary(o);
        long startNs = o.start().getEpochSecond() * 1_000_000_000L + o.start().getNano();
        List<Observation.Frame> all = o.frames();
        int from = Math.min(offset, all.size());
        int to = (int) Math.min((long) from + limit, all.size());
        int n = to - from;
        long[] seq = new long[n];
        long[] sendOffsetNs = new long[n];
        long[] valueNs = new long[n];
        long[] bytes = new long[n];
        int[] ttl = new int[n];
        for (int i = 0; i < n; i++) {
            Observation.Frame fr = all.get(from + i);
            seq[i] = fr.seq();
            sendOffsetNs[i] = fr.sendEpochNanos() - startNs;
            valueNs[i] = fr.valueNanos();
            bytes[i] = fr.bytes();
            ttl[i] = fr.ttl();
        }
        Map<String, Object> frames = new LinkedHashMap<>();
        frames.put("seq", seq);
        frames.put("sendOffsetNs", sendOffsetNs);
        frames.put("valueNs", valueNs);
        frames.put("bytes", bytes);
        frames.put("ttl", ttl);
        m.put("framesTotal", all.size());
        m.put("framesOffset", from);
        m.put("frames", frames);
        // Samples are few (the kind bounds them per stream), but one page bounds them as frames are.
        Map<String, Object> samples = new LinkedHashMap<>();
        int rows = 0;
        for (Map.Entry<String, long[]> c : o.samples().entrySet()) {
            long[] col = c.getValue();
            rows = Math.max(rows, col.length);
            int sFrom = Math.min(offset, col.length);
            samples.put(c.getKey(), java.util.Arrays.copyOfRange(col, sFrom, (int) Math.min((long) sFrom + limit, col.length)));
        }
        m.put("samplesTotal", rows);
        m.put("samples", samples);
        return m;
    }

    private static Map<String, Object> summary(Observation o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", o.id());
        m.put("measurementPoint", o.measurementPoint());
        m.put("test", o.test().key());
        m.put("src", o.subject().src() == null ? null : o.subject().src().host());
        m.put("dst", o.subject().dst().host());
        m.put("srcAddress", o.srcAddress());
        m.put("dstAddress", o.dstAddress());
        m.put("start", o.start().toString());
        m.put("end", o.end().toString());
        m.put("parameters", o.parameters());
        m.put("summary", o.summary());
        return m;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static void within(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " is " + value + ": must be " + min + ".." + max);
        }
    }

    /** A bad query is the client's: 400 with the reason, never a stack trace. */
    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    Map<String, String> badRequest(IllegalArgumentException e) {
        return Map.of("error", e.getMessage());
    }
}
