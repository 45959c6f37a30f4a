package org.nmws.service.api;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.TestClass;
import org.nmws.service.schedule.Schedule;
import org.nmws.service.schedule.ScheduleRequest;
import org.nmws.service.schedule.ScheduleService;
import org.nmws.service.schedule.ScheduleStore;
import org.nmws.service.schedule.ScheduledRun;
import org.nmws.service.schedule.Scheduler;
import org.nmws.service.security.Callers;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The schedules through JSON: list, create or replace by name (PUT), remove, a schedule's runs
 * (with non-starters and their reasons), and when a new test of a class could run here.
 */
@RestController
class ScheduleController {
    private final ScheduleStore store;
    private final Scheduler scheduler;
    private final ScheduleService schedules;
    private final Callers callers;

    ScheduleController(ScheduleStore store, Scheduler scheduler, ScheduleService schedules, Callers callers) {
        this.store = store;
        this.scheduler = scheduler;
        this.schedules = schedules;
        this.callers = callers;
    }

    @GetMapping("/api/schedules")
    List<Map<String, Object>> list() {
        return store.all().stream().map(ScheduleController::json).toList();
    }

    @PutMapping("/api/schedules/{name}")
    ResponseEntity<Map<String, Object>> put(@PathVariable String name, @RequestBody ScheduleRequest request) {
        try {
            return ResponseEntity.ok(json(schedules.put(callers.current(), name, request)));
        } catch (IllegalArgumentException e) {
            return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
        } catch (MeasurementException e) {
            return refused(e);
        }
    }

    @DeleteMapping("/api/schedules/{name}")
    ResponseEntity<Map<String, Object>> delete(@PathVariable String name) {
        try {
            return schedules.delete(callers.current(), name) ? ResponseEntity.noContent().build()
                    : ResponseEntity.notFound().build();
        } catch (MeasurementException e) {
            return refused(e);
        }
    }

    /** Not the caller's to make or change (403), or over its number of schedules (429). */
    private static ResponseEntity<Map<String, Object>> refused(MeasurementException e) {
        return ResponseEntity.status(e.kind() == MeasurementException.Kind.RATE_LIMITED ? 429
                : e.kind() == MeasurementException.Kind.DENIED ? 403 : 400).body(Map.of("error", e.getMessage()));
    }

    /** The runs that have come due (newest first), or with planned=true those planned ahead too. */
    @GetMapping("/api/schedules/{name}/runs")
    ResponseEntity<List<ScheduledRun>> runs(@PathVariable String name, @RequestParam(defaultValue = "100") int limit,
                                            @RequestParam(defaultValue = "false") boolean planned) {
        if (limit < 1 || limit > 10_000) {
            return ResponseEntity.badRequest().build();
        }
        return store.byName(name).map(s -> ResponseEntity.ok(store.runs(s.id(), limit, planned ? Instant.MAX : Instant.now())))
                .orElse(ResponseEntity.notFound().build());
    }

    /** When a test of this class and duration could start on this point, given its schedules. */
    @GetMapping("/api/availability")
    ResponseEntity<Map<String, Object>> availability(@RequestParam(name = "class") String testClass,
                                                     @RequestParam(defaultValue = "PT10S") Duration duration) {
        TestClass c;
        try {
            c = TestClass.parse(testClass);
        } catch (IllegalArgumentException e) {
            return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
        }
        if (duration.isNegative() || duration.toHours() > 24) {
            return ResponseEntity.badRequest().body(Map.of("error", "duration must be 0..24 h"));
        }
        Instant now = Instant.now();
        Instant at = scheduler.availability(c, duration, now);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("class", c.label());
        body.put("duration", duration.toString());
        body.put("earliest", at.toString());
        body.put("inSeconds", Math.max(0, Duration.between(now, at).toSeconds()));
        return ResponseEntity.ok(body);
    }

    static Map<String, Object> json(Schedule s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("point", s.point());
        m.put("characteristic", s.characteristic());
        m.put("src", s.src());
        m.put("dst", s.dst());
        m.put("parameters", s.parameters());
        m.put("period", s.period().toString());
        m.put("slip", s.slip().toString());
        m.put("start", s.start().toString());
        m.put("end", s.end() == null ? null : s.end().toString());
        m.put("testClass", s.testClass().label());
        m.put("enabled", s.enabled());
        m.put("owner", s.owner());
        m.put("archives", s.archives().stream().map(a -> a.shown()).toList());
        return m;
    }
}
