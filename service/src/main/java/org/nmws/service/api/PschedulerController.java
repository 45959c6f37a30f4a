package org.nmws.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.archive.Archive;
import org.nmws.service.observation.Observation;
import org.nmws.service.perfsonar.LogstashDocuments;
import org.nmws.service.perfsonar.PschedulerResults;
import org.nmws.service.perfsonar.PschedulerType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * One stored result in perfSONAR's forms: GET /api/results/{id}/pscheduler gives the pScheduler
 * result of its test type; form=archive the archive body pScheduler's archivers send; form=document
 * the OpenSearch document perfSONAR's Logstash makes of it; type=throughput writes a UDP stream as
 * iperf3's UDP throughput instead of latency. A result with no pScheduler form is a 400 saying so.
 */
@RestController
class PschedulerController {
    private final Archive archive;

    PschedulerController(Archive archive) {
        this.archive = archive;
    }

    @GetMapping(path = "/api/results/{id}/pscheduler")
    ResponseEntity<?> pscheduler(@PathVariable String id, @RequestParam Optional<String> form,
                                 @RequestParam Optional<String> type) {
        if (!id.matches("\\d{1,18}")) {
            return bad("id is '" + id + "': a result id is a number");
        }
        Optional<Observation> found = archive.findById(Long.parseLong(id), true);
        if (found.isEmpty()) {
            return ResponseEntity.status(404).header(HttpHeaders.CONTENT_TYPE, "application/json")
                    .body(Map.of("error", "no result " + id));
        }
        Observation o = found.get();
        try {
            PschedulerType t = type.isPresent() ? PschedulerType.named(type.get()).orElseThrow(() -> new PschedulerType.NoForm(
                    "type is '" + type.get() + "': one of latency, rtt, throughput, trace")) : PschedulerType.required(o);
            JsonNode body = switch (form.orElse("result")) {
                case "result" -> PschedulerResults.result(o, t);
                case "archive" -> PschedulerResults.archiveBody(o, t);
                case "document" -> LogstashDocuments.document(o, t);
                default -> throw new PschedulerType.NoForm("form is '" + form.get() + "': one of result, archive, document");
            };
            return ResponseEntity.ok().header(HttpHeaders.CONTENT_TYPE, "application/json").body(body);
        } catch (PschedulerType.NoForm e) {
            return bad(e.getMessage());
        }
    }

    private static ResponseEntity<?> bad(String message) {
        return ResponseEntity.badRequest().header(HttpHeaders.CONTENT_TYPE, "application/json").body(Map.of("error", message));
    }
}
