package org.nmws.service.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.perfsonar.Esmond;
import org.nmws.service.usecase.StoredResults;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * esmond's REST API, read-only, at the host's root path as perfSONAR serves it
 * (/esmond/perfsonar/archive/): metadata search, one measurement's metadata, and base data and
 * summaries of its event types (docs/esmond.md). Answers are esmond's JSON with Content-Type
 * exactly application/json; refusals are {"detail": ...} with esmond's status. Under the read
 * role, as the rest of the JSON API (SecurityConfig's anyRequest rule).
 */
@RestController
class EsmondController {
    private static final ObjectWriter JSON = new ObjectMapper().writer(
            new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("    ", "\n")));
    private final Esmond esmond;

    EsmondController(Archive archive, NmwsProperties props) {
        this.esmond = new Esmond(new StoredResults(archive), props.limits().maxAnswerFrames());
    }

    @GetMapping({Esmond.BASE, Esmond.BASE + "/"})
    ResponseEntity<byte[]> search(HttpServletRequest request) {
        return answer(() -> esmond.search(query(request), url(request)));
    }

    @GetMapping({Esmond.BASE + "/{key}", Esmond.BASE + "/{key}/"})
    ResponseEntity<byte[]> metadata(@PathVariable String key) {
        return answer(() -> esmond.metadata(key));
    }

    @GetMapping({Esmond.BASE + "/{key}/{eventType}/{summaryType}", Esmond.BASE + "/{key}/{eventType}/{summaryType}/"})
    ResponseEntity<byte[]> base(@PathVariable String key, @PathVariable String eventType, @PathVariable String summaryType,
                                HttpServletRequest request) {
        return answer(() -> esmond.data(key, eventType, summaryType, "0", query(request)));
    }

    @GetMapping({Esmond.BASE + "/{key}/{eventType}/{summaryType}/{window}",
            Esmond.BASE + "/{key}/{eventType}/{summaryType}/{window}/"})
    ResponseEntity<byte[]> data(@PathVariable String key, @PathVariable String eventType, @PathVariable String summaryType,
                                @PathVariable String window, HttpServletRequest request) {
        return answer(() -> esmond.data(key, eventType, summaryType, window, query(request)));
    }

    private static ResponseEntity<byte[]> answer(java.util.function.Supplier<JsonNode> work) {
        int status = 200;
        Object body;
        try {
            body = work.get();
        } catch (Esmond.Refused e) {
            status = e.status();
            body = Map.of("detail", e.getMessage());
        } catch (StoredResults.Unavailable e) {
            status = 503;
            body = Map.of("detail", "the archive could not answer; try again later");
        }
        try {
            byte[] bytes = (JSON.writeValueAsString(body) + "\n").getBytes(StandardCharsets.UTF_8);
            // exactly application/json: esmond's clients compare the header as written
            return ResponseEntity.status(status).header(HttpHeaders.CONTENT_TYPE, "application/json").body(bytes);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an esmond answer could not be written", e);
        }
    }

    /** The query's first value of each parameter (esmond reads one). */
    private static Map<String, String> query(HttpServletRequest request) {
        Map<String, String> q = new LinkedHashMap<>();
        request.getParameterMap().forEach((k, v) -> {
            if (v.length > 0) {
                q.put(k, v[0]);
            }
        });
        return q;
    }

    private static String url(HttpServletRequest request) {
        return request.getRequestURL().toString();
    }
}
