package org.nmws.service.kind;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.nmws.service.observation.Characteristic;

/** Each kind reads the parameters it writes back, and refuses the rest by name (issue 20). */
class ParameterNamesTest {
    private static final Duration MINUTE = Duration.ofSeconds(60);

    @Test
    void everyParameterAKindWritesBackIsOneItReads() {
        Map<String, Map<String, String>> written = new LinkedHashMap<>();
        Map<String, Set<String>> reads = new LinkedHashMap<>();
        written.put("round trip", RoundTripParameters.parse(Map.of(), 8700, 1000, MINUTE).asNmwg());
        reads.put("round trip", RoundTripParameters.READS);
        written.put("UDP stream", StreamParameters.parse(Map.of(), 8700, 100_000, MINUTE).asNmwg());
        reads.put("UDP stream", StreamParameters.READS);
        written.put("TCP", TcpParameters.parse(Map.of("congestion", "cubic"), Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP,
                8700, MINUTE).asNmwg());
        reads.put("TCP", TcpParameters.READS);
        written.put("capacity", BandwidthParameters.capacity(Map.of(), 8700, 100_000).asCapacityNmwg());
        reads.put("capacity", BandwidthParameters.CAPACITY_READS);
        written.put("available", BandwidthParameters.available(Map.of(), 8700, MINUTE, 0).asAvailableNmwg());
        reads.put("available", BandwidthParameters.AVAILABLE_READS);
        written.put("hop list", HopParameters.parse(Map.of(), MINUTE).asNmwg());
        reads.put("hop list", HopParameters.READS);
        written.put("hop capacity", HopCapacityParameters.parse(Map.of("perHop", "true"), 2_000_000).asNmwg());
        reads.put("hop capacity", HopCapacityParameters.READS);
        written.put("scan", ScanParameters.parse(Map.of("packetSizes", "64,512"), 8700, 1000, MINUTE).asNmwg());
        reads.put("scan", ScanParameters.READS);
        written.put("utilization", UtilizationParameters.parse(Map.of(), MINUTE).asNmwg());
        reads.put("utilization", UtilizationParameters.READS);
        written.put("STAMP", StampKind.Parameters.parse(Map.of(), 1000, MINUTE).asNmwg());
        reads.put("STAMP", StampKind.Parameters.READS);
        written.put("STAMP authenticated", StampKind.Parameters.parse(Map.of("authMode", "authenticated", "keyId", "lab"),
                1000, MINUTE, true).asNmwg());
        reads.put("STAMP authenticated", StampKind.Parameters.READS);
        written.forEach((kind, params) -> assertDoesNotThrow(() -> ParameterNames.check(params, kind, reads.get(kind)), kind));
    }

    @Test
    void aSenderRoleAndAForwardDirectionAreWhatEveryTestDoes() {
        assertDoesNotThrow(() -> TcpParameters.parse(Map.of("role", "sender", "direction", "forward"),
                Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP, 8700, MINUTE));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BandwidthParameters.capacity(
                Map.of("direction", "reverse"), 8700, 100_000));
        assertEquals("parameter direction is 'reverse': this host can only send to the destination (to, forward);"
                + " the engine cannot make the far end send", e.getMessage());
    }

    @Test
    void aProtocolOtherThanTheTestsOwnIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HopParameters.parse(Map.of("protocol", "ICMP"), MINUTE));
        assertEquals("parameter protocol is 'ICMP': this test is UDP (its probes are UDP, as traceroute's)", e.getMessage());
    }
}
