package org.nmws.service.api;

import org.nmws.service.observation.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.PageKey;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.StoredResults;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The JSON read API for dashboards and scripts: stored observations of one characteristic
 * to one destination in a time window, each with its summary, parameters and observation
 * environment. Bad parameters get HTTP 400 with a JSON error saying which.
 */
@RestController
class ResultsController {
    static final int MAX_LIMIT = 1000;

    private final Archive archive;
    private final int maxAnswerFrames;

    ResultsController(Archive archive, NmwsProperties props) {
        this.archive = archive;
        this.maxAnswerFrames = props.limits().maxAnswerFrames();
    }

    @GetMapping(path = "/api/results", produces = "application/json")
    ResponseEntity<Map<String, Object>> results(@RequestParam Optional<String> dst, @RequestParam Optional<String> src,
                                                @RequestParam Optional<String> characteristic,
                                                @RequestParam Optional<String> from, @RequestParam Optional<String> to,
                                                @RequestParam Optional<String> limit, @RequestParam Optional<String> raw,
                                                @RequestParam(name = "before") Optional<String> beforeKey) {
        try {
            String d = dst.filter(s -> !s.isBlank()).orElseThrow(() -> new BadRequest("parameter dst is required"));
            String cname = characteristic.filter(s -> !s.isBlank()).orElse("path.delay.roundTrip");
            Characteristic c = Characteristic.lookup(cname).orElseThrow(() -> new BadRequest("characteristic '" + cname
                    + "' is not known; known: " + known()));
            Endpoint dstEndpoint = endpoint("dst", d);
            Endpoint srcEndpoint = src.filter(s -> !s.isBlank()).map(s -> endpoint("src", s)).orElse(null);
            Instant f = from.map(s -> time("from", s)).orElse(null);
            Instant t = to.map(s -> time("to", s)).orElse(null);
            if (f != null && t != null && f.isAfter(t)) {
                throw new BadRequest("from " + f + " is after to " + t);
            }
            int n = limit.map(this::limit).orElse(100);
            boolean frames = raw.map(s -> switch (s) {
                case "true", "1" -> true;
                case "false", "0" -> false;
                default -> throw new BadRequest("raw must be true or false");
            }).orElse(false);
            PageKey before = beforeKey.filter(s -> !s.isBlank()).map(ResultsController::pageKey).orElse(null);
            StoredResults.Found page = new StoredResults(archive).find(new ObservationQuery(c.test(), dstEndpoint.host(),
                    srcEndpoint == null ? null : srcEndpoint.host(), f, t, false, n, null, null, before), o -> { });
            List<Observation> found = page.results();
            PageKey next = page.next();
            if (frames) {
                found = withFrames(found);
            }
            List<Map<String, Object>> results = new ArrayList<>(found.size());
            for (Observation o : found) {
                results.add(json(o, frames));
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("characteristic", c.dottedName());
            body.put("dst", dstEndpoint.host());
            body.put("count", results.size());
            body.put("cut", next != null);
            if (next != null) {
                body.put("before", next.encode()); // ask again with before=this for the older page
            }
            body.put("results", results);
            return ResponseEntity.ok(body);
        } catch (BadRequest e) {
            return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
        }
    }

    private static Map<String, Object> json(Observation o, boolean frames) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", o.id());
        m.put("measurementPoint", o.measurementPoint());
        m.put("test", o.test().key());
        Map<String, Object> subject = new LinkedHashMap<>();
        if (o.subject().src() != null) {
            subject.put("src", o.subject().src());
        }
        subject.put("dst", o.subject().dst());
        m.put("subject", subject);
        m.put("srcAddress", o.srcAddress());
        m.put("dstAddress", o.dstAddress());
        m.put("start", o.start().toString());
        m.put("end", o.end().toString());
        m.put("tool", o.tool());
        m.put("toolVersion", o.toolVersion());
        m.put("parameters", o.parameters());
        m.put("summary", o.summary());
        m.put("environment", o.environment());
        if (frames) {
            m.put("frames", o.frames());
        }
        return m;
    }

    /** Frames read one observation at a time, within what one answer may carry (as for NMWG answers). */
    private List<Observation> withFrames(List<Observation> summaries) {
        List<Observation> full = new ArrayList<>(summaries.size());
        long left = maxAnswerFrames;
        for (Observation s : summaries) {
            Observation o = archive.findById(s.id(), true).orElse(s);
            left -= o.frames().size();
            if (left < 0) {
                throw new BadRequest("the raw data asked for exceeds what one answer may carry "
                        + "(nmws.limits.max-answer-frames); ask for fewer results (limit), a shorter time range, or without raw");
            }
            full.add(o);
        }
        return full;
    }

    private static PageKey pageKey(String s) {
        try {
            return PageKey.decode(s);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    private int limit(String s) {
        try {
            int n = s.trim().matches("\\d{1,9}") ? Integer.parseInt(s.trim()) : -1; // ASCII digits only
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new BadRequest("limit is '" + s + "': must be 1.." + MAX_LIMIT);
    }

    private static Endpoint endpoint(String name, String value) {
        try {
            return Endpoint.parse(value, null);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(name + ": " + e.getMessage());
        }
    }

    /** Unix seconds (with a fraction) or ISO 8601. */
    static Instant time(String name, String text) {
        try {
            return Times.parse(name, text);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    private static String known() {
        List<String> names = new ArrayList<>();
        for (Characteristic c : Characteristic.values()) {
            names.add(c.dottedName());
        }
        return String.join(", ", names);
    }

    /** A request parameter that cannot be used; its message goes to the client. */
    private static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }
}
