package org.nmws.service.api;

import java.util.Map;
import org.nmws.service.psconfig.PsConfigAgent;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/psconfig: the pSConfig template this point runs its share of (source, last read,
 * the error of a refused one), the schedules made for each task, the tasks and pairs it does
 * not run with why, and the template's archives.
 */
@RestController
class PsConfigController {
    private final ObjectProvider<PsConfigAgent> agent;

    PsConfigController(ObjectProvider<PsConfigAgent> agent) {
        this.agent = agent;
    }

    @GetMapping(path = "/api/psconfig", produces = "application/json")
    Map<String, Object> state() {
        PsConfigAgent a = agent.getIfAvailable();
        return a == null ? Map.of("configured", false) : a.view();
    }
}
