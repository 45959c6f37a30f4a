package org.nmws.service.measure;

import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/tests lists running tests with progress; DELETE /api/tests/{id} cancels one, for
 * clients with the measure role (nmws.security decides, before this is reached).
 */
@RestController
class RunningTestsController {
    private final RunningTests running;

    RunningTestsController(RunningTests running) {
        this.running = running;
    }

    @GetMapping("/api/tests")
    List<RunningTests.Running> list() {
        return running.list();
    }

    @DeleteMapping("/api/tests/{id}")
    ResponseEntity<Void> cancel(@PathVariable String id) {
        return running.cancel(id) ? ResponseEntity.accepted().build() : ResponseEntity.notFound().build();
    }
}
