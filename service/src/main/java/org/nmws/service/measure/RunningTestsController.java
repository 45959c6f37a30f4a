package org.nmws.service.measure;

import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/tests lists running tests with progress; DELETE /api/tests/{id} cancels one, for
 * clients that may start tests (403 for the others).
 */
@RestController
class RunningTestsController {
    private final RunningTests running;
    private final TestAdmission admission;

    RunningTestsController(RunningTests running, TestAdmission admission) {
        this.running = running;
        this.admission = admission;
    }

    @GetMapping("/api/tests")
    List<RunningTests.Running> list() {
        return running.list();
    }

    @DeleteMapping("/api/tests/{id}")
    ResponseEntity<Void> cancel(@PathVariable String id) {
        if (!admission.allows(TestAdmission.currentClient())) {
            return ResponseEntity.status(403).build();
        }
        return running.cancel(id) ? ResponseEntity.accepted().build() : ResponseEntity.notFound().build();
    }
}
