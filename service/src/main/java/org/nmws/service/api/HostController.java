package org.nmws.service.api;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/host: this point's side of the observation environment now (kernel, CPU, the clock's
 * synchronisation, reference and error), as every answer carries it; for troubleshooting when
 * no test has answered (nmws troubleshoot reads this host's clock here when every test failed).
 */
@RestController
class HostController {
    private final HostEnvironment host;
    private final MeasurementService measurements;

    HostController(HostEnvironment host, MeasurementService measurements) {
        this.host = host;
        this.measurements = measurements;
    }

    @GetMapping(path = "/api/host", produces = "application/json")
    Map<String, Object> host() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("measurementPoint", measurements.measurementPoint());
        m.put("host", host.describe("src", null));
        return m;
    }
}
