package org.nmws.service.v1;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * What the core answered to one v1 request: the measurements (newest last), whether they
 * were taken for this request, or the fault.
 */
public record V1Outcome(V1Request request, List<Measurement> measurements, boolean newMeasurement, V1Fault fault) {

    /**
     * One measurement as reported.
     *
     * @param statistics figure name to value, in the order the service gives them
     * @param units figure name to units, where the figure has units
     * @param environment the env:environment element of the NMWG answer, or null
     */
    public record Measurement(String tool, String toolVersion, Instant start, Instant end, Map<String, String> parameters,
                              Map<String, Double> statistics, Map<String, String> units, Element environment,
                              String maKey) {
        /** Held at this point while the archive was down: its maKey ("r.<result key>") finds it once written. */
        public boolean pending() {
            return maKey != null && maKey.startsWith(org.nmws.service.usecase.Measure.Ran.HELD_KEY);
        }
    }

    static V1Outcome failed(V1Request request, V1Fault fault) {
        return new V1Outcome(request, List.of(), false, fault);
    }
}
