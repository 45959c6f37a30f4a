package org.nmws.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nmws.service.archive.JdbcArchive;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/** The mesh grid's figures from a real archive, in both modes: the mesh file's points, or the stored paths. */
class OverviewControllerTest {
    private static final Instant T0 = Instant.parse("2026-05-01T12:00:00Z");
    private static final Mesh MESH = new Mesh(List.of(
            new Mesh.Point("cern", "https://cern.example", "192.0.2.10", 0, null, null),
            new Mesh.Point("ral", "https://ral.example", "198.51.100.7", 0, null, null),
            new Mesh.Point("fnal", "https://fnal.example", "203.0.113.5", 0, null, null)), List.of());
    private JdbcArchive archive;
    private Observation rrNew;
    private Observation tcp;
    private Observation stream;

    @BeforeEach
    void fill(@TempDir Path dir) {
        archive = TestArchives.sqlite(dir);
        save("cern", ProbeTest.ROUND_TRIP, "198.51.100.7", T0, Map.of("medianRtt", 9.0, "lossPercent", 5.0));
        rrNew = save("cern", ProbeTest.ROUND_TRIP, "198.51.100.7", T0.plusSeconds(60), Map.of("medianRtt", 8.5, "lossPercent", 0.0));
        tcp = save("cern", ProbeTest.TCP_STREAM, "198.51.100.7", T0.plusSeconds(30), Map.of("throughputMbps", 940.0));
        // a stream newer than the round trips: its loss is the cell's loss
        stream = save("ral", ProbeTest.UDP_STREAM, "192.0.2.10", T0.plusSeconds(90),
                Map.of("lossPercent", 0.25, "medianDelayMs", 4.2));
        save("fnal", ProbeTest.HOP_LIST, "192.0.2.10", T0, Map.of("hops", 7.0)); // no figure of the grid
    }

    @Test
    void withAMeshTheGridIsTheMeshPointsWithTheNewestFigureOfEachPair() {
        Map<String, Object> o = new OverviewController(archive, MESH, org.nmws.service.kind.Kinds.measurementKinds()).overview(500);
        assertEquals("mesh", o.get("source"));
        assertEquals(List.of("cern", "ral", "fnal"), o.get("rows"));
        assertEquals(List.of("cern", "ral", "fnal"), o.get("columns"));
        List<Map<String, Object>> cells = cells(o);
        assertEquals(2, cells.size(), "only pairs with results: " + cells);
        Map<String, Object> cernRal = cell(cells, "cern", "ral");
        assertEquals(figure(8.5, rrNew), cernRal.get("rttMs"));
        assertEquals(figure(0.0, rrNew), cernRal.get("lossPercent"));
        assertEquals(figure(940.0, tcp), cernRal.get("throughputMbps"));
        Map<String, Object> ralCern = cell(cells, "ral", "cern");
        assertEquals(figure(0.25, stream), ralCern.get("lossPercent"));
        assertEquals(figure(4.2, stream), ralCern.get("owdMs"));
        assertEquals(null, ralCern.get("rttMs"));
    }

    @Test
    void withoutAMeshTheGridIsTheStoredPathsByMeasurementPointAndDestination() {
        Map<String, Object> o = new OverviewController(archive, Mesh.NONE, org.nmws.service.kind.Kinds.measurementKinds()).overview(500);
        assertEquals("archive", o.get("source"));
        assertEquals(List.of("cern", "ral"), o.get("rows"));
        assertEquals(List.of("198.51.100.7", "192.0.2.10"), o.get("columns"));
        Map<String, Object> cernRal = cell(cells(o), "cern", "198.51.100.7");
        assertEquals(figure(8.5, rrNew), cernRal.get("rttMs"));
        assertEquals(figure(940.0, tcp), cernRal.get("throughputMbps"));
    }

    private Observation save(String point, ProbeTest test, String dst, Instant at, Map<String, Double> summary) {
        return archive.save(new Observation(0, point, test, new PathSubject(null, new Endpoint(dst, "ipv4")), "10.0.0.1", dst,
                "nmprobe", "t", Map.of(), new Environment(null, null), at, at.plusSeconds(1), summary, List.of()));
    }

    private static Map<String, Object> figure(double value, Observation from) {
        return Map.of("value", value, "id", from.id(), "test", from.test().key(), "at", from.start().toString());
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> cells(Map<String, Object> overview) {
        return (List<Map<String, Object>>) overview.get("cells");
    }

    private static Map<String, Object> cell(List<Map<String, Object>> cells, String src, String dst) {
        return cells.stream().filter(c -> src.equals(c.get("src")) && dst.equals(c.get("dst"))).findFirst()
                .orElseThrow(() -> new AssertionError("no cell " + src + " -> " + dst + " in " + cells));
    }
}
