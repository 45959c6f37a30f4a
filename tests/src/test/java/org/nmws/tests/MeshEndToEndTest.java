package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Two points of one mesh on this host (point-a at 127.0.0.1, point-b at 127.0.0.2, each with
 * its service, responder and archive), one mesh file: each runs its share of the latency
 * group towards the other, and a request to point-a for a path from point-b is forwarded to
 * point-b, which measures it and whose answer (its environment included) point-a returns.
 */
class MeshEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void eachPointRunsItsShareAndARequestFromAnotherPointIsForwardedThere() throws Exception {
        try (Responder ra = Responder.start("127.0.0.1"); Responder rb = Responder.start("127.0.0.2")) {
            int pa = Responder.freePort();
            int pb = Responder.freePort();
            Path mesh = Files.createTempFile("nmws-mesh", ".json");
            Files.writeString(mesh, "{\"points\":["
                    + "{\"name\":\"point-a\",\"url\":\"http://127.0.0.1:" + pa + "\",\"address\":\"127.0.0.1\",\"responderPort\":" + ra.port + "},"
                    + "{\"name\":\"point-b\",\"url\":\"http://127.0.0.1:" + pb + "\",\"address\":\"127.0.0.2\",\"responderPort\":" + rb.port + "}],"
                    + "\"groups\":[{\"name\":\"latency\",\"characteristic\":\"path.delay.roundTrip\",\"period\":\"PT2S\","
                    + "\"parameters\":{\"count\":\"5\",\"interval\":\"0.01\"}}]}");
            try (Service a = Service.start(Files.createTempDirectory("nmws-mesh-a"), pa, "--nmws.measurement-point=point-a",
                    "--nmws.mesh.file=" + mesh);
                 Service b = Service.start(Files.createTempDirectory("nmws-mesh-b"), pb, "--nmws.measurement-point=point-b",
                         "--nmws.mesh.file=" + mesh)) {
                // Forwarded: point-b measures its path to point-a's responder.
                String request = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" "
                        + "xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\" type=\"MeasurementRequest\" id=\"fw\">"
                        + "<nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\"><nmwgt:endPointPair>"
                        + "<nmwgt:src type=\"hostname\" value=\"point-b\"/><nmwgt:dst type=\"ipv4\" value=\"127.0.0.1\"/>"
                        + "</nmwgt:endPointPair></nmwg:subject><nmwg:eventType>path.delay.roundTrip</nmwg:eventType>"
                        + "<nmwg:parameters id=\"p1\"><nmwg:parameter name=\"count\">7</nmwg:parameter>"
                        + "<nmwg:parameter name=\"interval\">0.005</nmwg:parameter><nmwg:parameter name=\"port\">" + ra.port
                        + "</nmwg:parameter></nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>";
                Element answer = Service.validatedMessage(a.post("/nmwg", request, "application/xml", null).body());
                NodeList envs = answer.getElementsByTagNameNS("http://nmws.org/ns/environment/1.0/", "environment");
                assertTrue(envs.getLength() >= 1, "the remote environment comes back: " + answer.getTextContent());
                assertEquals("point-b", ((Element) envs.item(0)).getAttribute("measurementPoint"), "measured by point-b");
                assertTrue(answer.getElementsByTagNameNS(Service.NMWG, "metadata").item(0) instanceof Element md
                        && !md.getAttribute("id").isEmpty());
                // The cost of a transfer from point-b, asked of point-a: point-b answers from its archive
                // (it measured TCP to point-a's responder just now, for this question: refresh)
                String cost = CostEndToEndTest.adviceRequest("SetupDataRequest", "http://nmws.org/ns/cost/1.0/",
                        new String[] {"127.0.0.1"}, "<nmwg:parameter name=\"bytes\">1e8</nmwg:parameter>"
                                + "<nmwg:parameter name=\"src\">point-b</nmwg:parameter>"
                                + "<nmwg:parameter name=\"refresh\">true</nmwg:parameter>"
                                + "<nmwg:parameter name=\"port\">" + ra.port + "</nmwg:parameter>");
                String costAnswer = a.post("/nmwg", cost, "application/xml", null).body();
                Element costDatum = (Element) Service.validatedMessage(costAnswer)
                        .getElementsByTagNameNS("http://nmws.org/ns/cost/1.0/", "datum").item(0);
                assertEquals("point-b", costDatum.getAttribute("src"), costAnswer);
                assertEquals("achievable-tcp", costDatum.getAttribute("basis"), costAnswer);
                assertEquals("true", costDatum.getAttribute("refreshed"), costAnswer);
                // The mesh file as a pSConfig template (issue 23), through the CLI: one mesh group,
                // point-b's own responder port in its address's _meta
                java.io.StringWriter out = new java.io.StringWriter();
                java.io.StringWriter err = new java.io.StringWriter();
                picocli.CommandLine cli = org.nmws.client.cli.NmwsCli.commandLine();
                cli.setOut(new java.io.PrintWriter(out, true));
                cli.setErr(new java.io.PrintWriter(err, true));
                assertEquals(0, cli.execute("--url", a.baseUrl, "psconfig", "from-mesh"), err.toString());
                JsonNode template = JSON.readTree(out.toString());
                assertEquals("mesh", template.at("/groups/latency/type").asText(), out.toString());
                assertEquals(rb.port, template.at("/addresses/point-b/_meta/nmws-responder-port").asInt(), out.toString());
                assertEquals("rtt", template.at("/tests/latency/type").asText(), out.toString());
                assertEquals("PT2S", template.at("/schedules/latency/repeat").asText(), out.toString());
                assertEquals("", err.toString(), "every group converted");
                Thread.sleep(7_000);
                // Each point ran its share of the group, into its own archive.
                assertTrue(doneRuns(a, "latency:point-a:point-b") >= 2, runsText(a, "latency:point-a:point-b"));
                assertTrue(doneRuns(b, "latency:point-b:point-a") >= 2, runsText(b, "latency:point-b:point-a"));
                assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(a.baseUrl + "/api/schedules/latency:point-b:point-a/runs"))
                        .build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "point-a holds only its own share");
                // The forwarded test is in point-b's archive, not point-a's.
                assertTrue(results(b, "127.0.0.1").findValuesAsText("measurementPoint").contains("point-b"));
                assertEquals(0, results(a, "127.0.0.1").get("count").asInt(), "point-a measured nothing towards itself");
            }
        }
    }

    private long doneRuns(Service s, String name) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name + "/runs")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        long n = 0;
        for (JsonNode run : JSON.readTree(r.body())) {
            if (run.get("status").asText().equals("DONE")) {
                n++;
            }
        }
        return n;
    }

    private String runsText(Service s, String name) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/schedules/" + name + "/runs?limit=8")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private JsonNode results(Service s, String dst) throws Exception {
        return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(s.baseUrl + "/api/results?dst=" + dst + "&limit=1000"))
                .build(), HttpResponse.BodyHandlers.ofString()).body());
    }
}
