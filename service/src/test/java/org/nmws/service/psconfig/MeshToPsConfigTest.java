package org.nmws.service.psconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.nmws.service.mesh.Mesh;

/**
 * Issue 23 item 1: a mesh file converted to pSConfig plans, on every point, the schedules the
 * mesh file itself gives that point (characteristic, destination, parameters with the far
 * responder's port, period, slip, continuous); a group without a pSConfig counterpart is left
 * out and named; the template passes nmws's pSConfig schema.
 */
class MeshToPsConfigTest {
    private static final String MESH = """
            {"points": [
              {"name": "a", "url": "http://10.5.0.1:8080", "address": "10.5.0.1"},
              {"name": "b", "url": "http://10.5.0.2:8080", "address": "10.5.0.2", "responderPort": 8702},
              {"name": "c", "url": "http://10.5.0.3:8080", "address": "10.5.0.3"}],
             "groups": [
              {"name": "latency", "characteristic": "path.delay.roundTrip", "period": "PT30S", "slip": "PT5S",
               "parameters": {"count": "20", "interval": "0.05", "packetSize": "100"}},
              {"name": "owd", "characteristic": "path.delay.oneWay", "period": "60", "slip": "10",
               "parameters": {"count": "500", "interval": "0.01", "packetSize": "1000"}},
              {"name": "stream", "characteristic": "path.delay.oneWay", "continuous": true,
               "parameters": {"interval": "0.1"}},
              {"name": "throughput", "characteristic": "path.bandwidth.achievable.TCP", "period": "PT1M", "slip": "PT10S",
               "parameters": {"timeDuration": "3", "streams": "2"}, "pairs": [["a", "b"], ["a", "c"], ["c", "a"]]},
              {"name": "trace", "characteristic": "path.hoplist", "period": "PT10M",
               "parameters": {"maxTtl": "20"}, "pairs": [["b", "c"]]},
              {"name": "capacity", "characteristic": "path.bandwidth.capacity", "period": "PT1H"},
              {"name": "odd", "characteristic": "path.delay.roundTrip", "period": "PT1M", "parameters": {"protocol": "STAMP"}}]}
            """;

    @Test
    void everyPointPlansFromTheTemplateWhatTheMeshFileGaveIt() throws Exception {
        Mesh mesh = new ObjectMapper().readValue(MESH, Mesh.class);
        MeshToPsConfig.Converted c = MeshToPsConfig.convert(mesh);
        new PsConfigSchema().check(c.template(), "converted");
        assertEquals(2, c.notConverted().size(), c.notConverted().toString());
        assertTrue(c.notConverted().get(0).startsWith("capacity: path.bandwidth.capacity has no pSConfig test type"),
                c.notConverted().toString());
        assertTrue(c.notConverted().get(1).startsWith("odd: parameter protocol has no rtt spec field"), c.notConverted().toString());
        assertEquals(2, c.template().path("_meta").path("nmws-not-converted").size());

        int total = 0;
        for (Mesh.Point self : mesh.points()) {
            Set<String> fromMesh = new TreeSet<>();
            for (Mesh.Group g : mesh.groups()) {
                if (g.name().equals("capacity") || g.name().equals("odd")) {
                    continue;
                }
                for (Mesh.Point[] pair : mesh.pairsFrom(g, self.name())) {
                    Map<String, String> p = new HashMap<>(g.parameters());
                    if (pair[1].responderPort() > 0 && !g.characteristic().equals("path.hoplist")) {
                        p.put("port", Integer.toString(pair[1].responderPort()));
                    }
                    if (Boolean.TRUE.equals(g.continuous())) {
                        p.remove("count");
                    }
                    fromMesh.add(key(g.characteristic(), pair[1].address(), p, g.period(), g.slip(), g.continuous()));
                }
            }
            Plan plan = new Planner(Set.of(self.address(), self.name())::contains).plan(c.template());
            assertEquals(List.of(), plan.notRun(), "point " + self.name());
            Set<String> fromTemplate = new TreeSet<>();
            for (Plan.Planned p : plan.runs()) {
                fromTemplate.add(key(p.request().characteristic(), p.request().dst(), p.request().parameters(),
                        p.request().period(), p.request().slip(), p.request().continuous()));
            }
            assertEquals(fromMesh, fromTemplate, "point " + self.name());
            total += fromTemplate.size();
        }
        // latency 6, owd 6, stream 6, throughput 3, trace 1
        assertEquals(22, total);
    }

    private static String key(String characteristic, String dst, Map<String, String> parameters, String period, String slip,
                              Boolean continuous) {
        return characteristic + " " + dst + " " + new java.util.TreeMap<>(parameters) + " every " + seconds(period) + " slip "
                + seconds(slip == null && period != null ? "0" : slip) + (Boolean.TRUE.equals(continuous) ? " continuous" : "");
    }

    private static String seconds(String d) {
        if (d == null) {
            return "-";
        }
        Duration x = d.matches("[0-9.]+") ? Duration.ofMillis(Math.round(Double.parseDouble(d) * 1000)) : Duration.parse(d);
        return Long.toString(x.toMillis());
    }
}
