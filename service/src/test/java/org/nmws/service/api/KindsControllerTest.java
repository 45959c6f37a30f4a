package org.nmws.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.service.kind.Kinds;

/** Each kind's own facts, as /api/kinds serves them to the dashboard and to scripts. */
class KindsControllerTest {
    private final List<Map<String, Object>> kinds = new KindsController(Kinds.measurementKinds()).kinds();

    @SuppressWarnings("unchecked")
    private Map<String, Object> kind(String test) {
        return kinds.stream().filter(k -> k.get("test").equals(test)).findFirst().orElseThrow();
    }

    @Test
    void everyKindIsListedWithTheClassOfEachCharacteristic() {
        assertEquals(12, kinds.size());
        // only reads counters: background (a dotted-name rule made it exclusive, as path.bandwidth.*)
        assertEquals(Map.of("path.bandwidth.utilization", "background"), kind("UTILIZATION").get("characteristics"));
        @SuppressWarnings("unchecked")
        Map<String, String> stamp = (Map<String, String>) kind("STAMP").get("characteristics");
        assertEquals("background", stamp.get("path.delay.oneWay"), "one packet an interval, either direction");
        @SuppressWarnings("unchecked")
        Map<String, String> stream = (Map<String, String>) kind("UDP_STREAM").get("characteristics");
        assertEquals("normal", stream.get("path.delay.oneWay"));
        assertEquals("exclusive", stream.get("path.bandwidth.achievable.UDP"));
        assertEquals("stamp_reflector", kind("STAMP").get("farEnd"));
        assertEquals("none", kind("UTILIZATION").get("farEnd"));
        assertEquals("owamp_twamp_server", kind("OWAMP").get("farEnd"));
        assertEquals("owamp_twamp_server", kind("TWAMP").get("farEnd"));
    }

    @Test
    void headlineFiguresCarryTheirGroupAndUnit() {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rr = (List<Map<String, Object>>) kind("ROUND_TRIP").get("figures");
        Map<String, Object> median = rr.stream().filter(f -> "medianRtt".equals(f.get("name"))).findFirst().orElseThrow();
        assertEquals(Map.of("name", "medianRtt", "unit", "ms", "group", "rttMs", "label", "RTT", "chart", "rttMs",
                "chartLabel", "round trip"), median);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> tcp = (List<Map<String, Object>>) kind("TCP_STREAM").get("figures");
        assertTrue(tcp.stream().anyMatch(f -> "stream\\d+ThroughputMbps".equals(f.get("pattern"))), tcp.toString());
    }

    @Test
    void aPathsChartsAndCountsAreTheKindsOwn() {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> udp = (List<Map<String, Object>>) kind("UDP_STREAM").get("figures");
        // drawn on the throughput chart, though not the grid's headline there
        Map<String, Object> received = udp.stream().filter(f -> "receiverUserMbps".equals(f.get("name"))).findFirst().orElseThrow();
        assertEquals(Map.of("name", "receiverUserMbps", "unit", "Mbit/s", "chart", "throughputMbps", "chartLabel", "UDP received"),
                received);
        // a count is a figure too: listed, with no unit
        Map<String, Object> sent = udp.stream().filter(f -> "sent".equals(f.get("name"))).findFirst().orElseThrow();
        assertEquals(null, sent.get("unit"));
        assertTrue(sent.containsKey("unit"));
    }
}
