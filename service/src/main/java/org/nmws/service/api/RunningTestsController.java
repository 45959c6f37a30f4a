package org.nmws.service.api;

import java.util.List;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.security.Callers;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/tests lists running tests with progress; DELETE /api/tests/{id} cancels one the
 * client started (clients with the measure role, as nmws.security decides before this is
 * reached), or any for an admin.
 */
@RestController
class RunningTestsController {
    private final RunningTests running;
    private final Callers callers;

    RunningTestsController(RunningTests running, Callers callers) {
        this.running = running;
        this.callers = callers;
    }

    @GetMapping("/api/tests")
    List<RunningTests.Running> list() {
        return running.list();
    }

    /** A client cancels its own tests; an admin any. */
    @DeleteMapping("/api/tests/{id}")
    ResponseEntity<Void> cancel(@PathVariable String id) {
        Caller caller = callers.current();
        return switch (running.cancel(id, caller.owner(), caller.admin())) {
            case CANCELLED -> ResponseEntity.accepted().build();
            case NOT_FOUND -> ResponseEntity.notFound().build();
            case NOT_YOURS -> ResponseEntity.status(403).build();
        };
    }
}
