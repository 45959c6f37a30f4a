package org.nmws.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.nmws.client.cli.NmwsCli;
import picocli.CommandLine;

/**
 * The cost of a transfer in more than one dialect, from real measurements: achievable TCP
 * to a responder a few times, then the ranking over JSON, XML-RPC (nmws.cost) and the CLI
 * agree, with the forecast, its expected error and the data's age.
 */
class CostEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theCostOfATransferComesFromAForecastOfRealMeasurementsInEveryDialect() throws Exception {
        try (Responder responder = Responder.start();
             Service service = Service.start(Files.createTempDirectory("nmws-cost"), "--nmws.responder-port=" + responder.port)) {
            for (int i = 0; i < 3; i++) {
                String r = service.post("/nmwg", SoapEndToEndTest.measurementRequest("127.0.0.1", 5, "")
                        .replace("path.delay.roundTrip", "path.bandwidth.achievable.TCP")
                        .replace("<nmwg:parameter name=\"count\">5</nmwg:parameter><nmwg:parameter name=\"interval\">0.005"
                                + "</nmwg:parameter>", "<nmwg:parameter name=\"timeDuration\">0.5</nmwg:parameter>"),
                        "application/xml", null).body();
                assertTrue(!r.contains("error."), r);
            }
            JsonNode json = JSON.readTree(service.get("/api/cost?dst=127.0.0.1&dst=192.0.2.99&bytes=1e9").body());
            assertEquals(2, json.size());
            JsonNode first = json.get(0);
            assertEquals("127.0.0.1", first.get("dst").asText(), "the measured destination ranks first");
            assertEquals("achievable-tcp", first.get("basis").asText());
            assertEquals(3, first.get("samples").asInt());
            assertTrue(first.get("rateMbps").asDouble() > 10 && first.get("seconds").asDouble() > 0, first.toString());
            assertTrue(first.has("predictor") && first.has("expectedErrorPercent") && first.get("ageSeconds").asLong() < 120,
                    first.toString());
            assertEquals("none", json.get(1).get("basis").asText(), "nothing measured the other");

            HttpResponse<String> rpc = service.post("/RPC2", "<?xml version=\"1.0\"?><methodCall><methodName>nmws.cost</methodName>"
                    + "<params><param><value><struct><member><name>destinations</name><value><array><data>"
                    + "<value><string>192.0.2.99</string></value><value><string>127.0.0.1</string></value></data></array></value>"
                    + "</member><member><name>bytes</name><value><double>1e9</double></value></member></struct></value></param>"
                    + "</params></methodCall>", "text/xml", null);
            String body = rpc.body();
            assertTrue(body.indexOf("<string>127.0.0.1</string>") < body.indexOf("<string>192.0.2.99</string>")
                    && body.contains("<name>basis</name><value><string>achievable-tcp</string></value>")
                    && body.contains("<name>samples</name><value><int>3</int></value>"), "XML-RPC ranks alike: " + body);

            StringWriter out = new StringWriter();
            CommandLine cli = new CommandLine(new NmwsCli());
            cli.setOut(new PrintWriter(out, true));
            assertEquals(0, cli.execute("--url", service.baseUrl, "cost", "--dst", "127.0.0.1", "--bytes", "1e9", "--json"), out.toString());
            assertEquals("achievable-tcp", JSON.readTree(out.toString()).get(0).get("basis").asText());
        }
    }
}
