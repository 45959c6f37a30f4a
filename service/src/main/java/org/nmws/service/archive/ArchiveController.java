package org.nmws.service.archive;

import org.nmws.service.observation.Times;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * Moving an archive between instances: GET /archive/store exports observations as an
 * nmwg:store document, POST /archive/store imports one (only when nmws.archive.import-enabled).
 */
@RestController
class ArchiveController {
    private final Archive archive;
    private final boolean importEnabled;

    ArchiveController(Archive archive, ArchiveProperties props) {
        this.archive = archive;
        this.importEnabled = props.importEnabled();
    }

    /** Observations that started in [from, to) (ISO-8601 times; default: everything). */
    @GetMapping(value = "/archive/store", produces = MediaType.APPLICATION_XML_VALUE)
    ResponseEntity<StreamingResponseBody> export(@RequestParam(required = false) String from,
                                                 @RequestParam(required = false) String to) {
        Instant start = time(from, Instant.EPOCH, "from");
        Instant end = time(to, Times.MAX, "to");
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_XML)
                .body(out -> NmwgStore.export(archive, start, end, out));
    }

    @PostMapping(value = "/archive/store", produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<Map<String, Object>> importStore(InputStream body) throws IOException {
        if (!importEnabled) {
            return ResponseEntity.status(HttpStatus.FORBIDDEN)
                    .body(Map.of("error", "import is disabled: set nmws.archive.import-enabled=true on this instance"));
        }
        try {
            long n = NmwgStore.importAtomically(archive, body);
            return ResponseEntity.ok(Map.of("imported", n));
        } catch (NmwgStore.TooLarge e) {
            return ResponseEntity.status(HttpStatus.PAYLOAD_TOO_LARGE).body(Map.of("error", e.getMessage(), "imported", 0));
        } catch (IllegalArgumentException e) {
            return ResponseEntity.badRequest().body(Map.of("error", e.getMessage(), "imported", 0));
        }
    }

    private static Instant time(String text, Instant fallback, String name) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return Times.parse(name, text);
        } catch (IllegalArgumentException e) {
            throw new org.springframework.web.server.ResponseStatusException(HttpStatus.BAD_REQUEST, e.getMessage(), e);
        }
    }
}
