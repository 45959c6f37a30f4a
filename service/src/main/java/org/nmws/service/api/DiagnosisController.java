package org.nmws.service.api;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.cost.DiagnosisService;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.security.Callers;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/diagnosis?dst=D[&amp;src=P][&amp;maxAge=PT1H][&amp;measure=true][&amp;streams=N]
 * [&amp;windowSize=B]: why the path to D is slow, as {@link DiagnosisService} names it; with measure,
 * the tests the question needs are run first (the measure role is needed for that).
 */
@RestController
class DiagnosisController {
    private final DiagnosisService diagnoses;
    private final Callers callers;

    DiagnosisController(DiagnosisService diagnoses, Callers callers) {
        this.diagnoses = diagnoses;
        this.callers = callers;
    }

    @GetMapping("/api/diagnosis")
    DiagnosisService.Diagnosis diagnose(@RequestParam String dst, @RequestParam(required = false) String src,
                                        @RequestParam(defaultValue = "PT1H") Duration maxAge,
                                        @RequestParam(defaultValue = "false") boolean measure,
                                        @RequestParam(required = false) String streams,
                                        @RequestParam(required = false) String windowSize,
                                        @RequestParam(required = false) String congestion) throws MeasurementException {
        Map<String, String> tcp = new LinkedHashMap<>();
        if (streams != null) {
            tcp.put("streams", streams);
        }
        if (windowSize != null) {
            tcp.put("windowSize", windowSize);
        }
        if (congestion != null) {
            tcp.put("congestion", congestion);
        }
        return diagnoses.diagnose(callers.current(), src, dst, maxAge, measure, tcp);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    Map<String, String> badRequest(IllegalArgumentException e) {
        return Map.of("error", e.getMessage());
    }

    /** A test the diagnosis needed could not run: the client is told why, with the status its kind has. */
    @ExceptionHandler(MeasurementException.class)
    static ResponseEntity<Map<String, String>> notMeasured(MeasurementException e) {
        HttpStatus status = switch (e.kind()) {
            case DENIED -> HttpStatus.FORBIDDEN;
            case BUSY, RATE_LIMITED, STORAGE -> HttpStatus.SERVICE_UNAVAILABLE;
            case PARAMETER, SUBJECT -> HttpStatus.BAD_REQUEST;
            default -> HttpStatus.BAD_GATEWAY;
        };
        return ResponseEntity.status(status).body(Map.of("error", e.getMessage(), "kind", e.kind().name()));
    }
}
