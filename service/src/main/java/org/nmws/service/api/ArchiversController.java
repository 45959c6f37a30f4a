package org.nmws.service.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.archive.Outbox;
import org.nmws.service.archiver.Delivery;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The archives this point delivers results to, each with its backlog, figures and state (the dashboard reads it). */
@RestController
class ArchiversController {
    private final Delivery delivery;
    private final Outbox outbox;

    ArchiversController(Delivery delivery, Outbox outbox) {
        this.delivery = delivery;
        this.outbox = outbox;
    }

    @GetMapping("/api/archivers")
    Map<String, Object> archivers() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("point", outbox.point());
        m.put("maxBacklog", outbox.maxPerArchive());
        List<Map<String, Object>> archives = delivery.state();
        m.put("archives", archives);
        return m;
    }
}
