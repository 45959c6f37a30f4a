package org.nmws.service.api;

import java.time.Duration;
import java.util.List;
import org.nmws.service.cost.CostQuery;
import org.nmws.service.cost.TransferCost;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.security.Callers;
import org.nmws.service.usecase.TransferCosts;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/cost?dst=A&amp;dst=B&amp;bytes=1e9[&amp;maxAge=PT24H][&amp;src=P][&amp;refresh=true
 * &amp;timeBudget=PT30S&amp;streams=1]: the destinations ranked by the estimated time to move that
 * many bytes from this measurement point (or src, from the shared archive), with the basis of
 * each estimate, for brokers and replica managers choosing where to read from or write to;
 * with refresh, stale destinations are measured first.
 */
@RestController
class CostController {
    private final TransferCosts costs;
    private final Callers callers;

    CostController(TransferCosts costs, Callers callers) {
        this.costs = costs;
        this.callers = callers;
    }

    @GetMapping("/api/cost")
    List<TransferCost> rank(@RequestParam List<String> dst, @RequestParam double bytes,
                            @RequestParam(defaultValue = "PT24H") Duration maxAge,
                            @RequestParam(required = false) String src,
                            @RequestParam(defaultValue = "false") boolean refresh,
                            @RequestParam(defaultValue = "PT30S") Duration timeBudget,
                            @RequestParam(defaultValue = "1") int streams,
                            @RequestParam(defaultValue = "TCP") String protocol) throws MeasurementException {
        return costs.rank(callers.current(), new CostQuery(src, dst, bytes, maxAge, refresh, timeBudget, streams, null, protocol));
    }

    /** A refresh this client may not ask for: 403 with the reason, as the diagnosis answers it. */
    @ExceptionHandler(MeasurementException.class)
    org.springframework.http.ResponseEntity<java.util.Map<String, String>> notMeasured(MeasurementException e) {
        return DiagnosisController.notMeasured(e);
    }

    /** A bad query is the client's: 400 with the reason, never a stack trace. */
    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    java.util.Map<String, String> badRequest(IllegalArgumentException e) {
        return java.util.Map.of("error", e.getMessage());
    }
}
