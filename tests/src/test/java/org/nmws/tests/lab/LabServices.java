package org.nmws.tests.lab;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The system under test placed in the lab: the real service (its executable jar) in A,
 * reached over the management link, and a real responder in B.
 */
final class LabServices {
    static final int SERVICE_PORT = 18080;
    static final int RESPONDER_PORT = 8700;

    final NetLab lab;
    final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LabServices(NetLab lab, String address) {
        this(lab, address, null, null, null);
    }

    /** A second service instance, in namespace ns reached at address, as another measurement point. */
    static LabServices startServiceOnly(NetLab lab, String ns, String address, String point) throws IOException, InterruptedException {
        Process s = lab.startIn(ns, serviceCommand(address, point, peerOnLink(address)), "service-" + point);
        NetLab.awaitPort(address, SERVICE_PORT, s, 90_000);
        return new LabServices(lab, address);
    }

    /**
     * A point of a mesh in namespace ns: its service listens on every address (other points reach
     * it over the lab, the test over the management link at address), with extra settings.
     */
    static LabServices startPoint(NetLab lab, String ns, String address, String point, String... extraArgs)
            throws IOException, InterruptedException {
        List<String> cmd = serviceCommand(address, point, peerOnLink(address), extraArgs);
        cmd.set(cmd.indexOf("--server.address=" + address), "--server.address=0.0.0.0");
        Process s = lab.startIn(ns, cmd, "service-" + point);
        NetLab.awaitPort(address, SERVICE_PORT, s, 120_000);
        return new LabServices(lab, address, s, ns, cmd);
    }

    final Process process;
    private final String ns;
    private final List<String> command;

    private LabServices(NetLab lab, String address, Process process, String ns, List<String> command) {
        this.lab = lab;
        this.baseUrl = "http://" + address + ":" + SERVICE_PORT;
        this.process = process;
        this.ns = ns;
        this.command = command;
    }

    /** Kills this point's service as a crash would and starts it again with the same settings and archive. */
    LabServices restart() throws IOException, InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        String address = baseUrl.substring("http://".length(), baseUrl.lastIndexOf(':'));
        Process s = lab.startIn(ns, command, "service-restarted");
        NetLab.awaitPort(address, SERVICE_PORT, s, 120_000);
        return new LabServices(lab, address, s, ns, command);
    }

    /** GETs a JSON path of the service. */
    String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + resp.statusCode() + " for " + path + ": " + resp.body());
        }
        return resp.body();
    }

    /** The test's end of a /30 management link whose far end is address (one below it). */
    static String peerOnLink(String address) {
        int dot = address.lastIndexOf('.');
        return address.substring(0, dot + 1) + (Integer.parseInt(address.substring(dot + 1)) - 1);
    }

    private static List<String> serviceCommand(String address, String point, String testClient, String... extraArgs) throws IOException {
        Path jar = Path.of(System.getProperty("nmws.service.jar", "../service/target/nmws-service-0.1.0-SNAPSHOT-exec.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("build the service jar first: " + jar.toAbsolutePath());
        }
        Path data = Files.createTempDirectory("nmws-lab-data");
        List<String> cmd = ServiceLaunch.command(jar, "512m");
        cmd.addAll(List.of("--server.port=" + SERVICE_PORT,
                "--server.address=" + address, "--nmws.data-dir=" + data, "--nmws.measurement-point=" + point,
                // The test posts from its own end of the management link, which is not loopback:
                // the operator's choice to let that one address start tests unauthenticated.
                "--nmws.limits.test-clients=" + testClient));
        cmd.addAll(List.of(extraArgs));
        return cmd;
    }

    /** A responder in B and the service in A, started with extra settings (--name=value). */
    static LabServices start(NetLab lab, String... serviceArgs) throws IOException, InterruptedException {
        return start(lab, List.of(), serviceArgs);
    }

    /** The same, with extra options for the responder. */
    static LabServices start(NetLab lab, List<String> responderArgs, String... serviceArgs) throws IOException, InterruptedException {
        Path responder = Path.of(System.getProperty("nmws.responder.bin", "../native-probe/target/native/bin/nmprobe-responder"));
        if (!Files.isExecutable(responder)) {
            throw new IllegalStateException("build the responder first: " + responder.toAbsolutePath());
        }
        // B also reflects STAMP on the standard port, as a router or another tool would
        List<String> rcmd = new java.util.ArrayList<>(List.of(responder.toAbsolutePath().toString(), "-b", lab.bAddress(),
                "-p", Integer.toString(RESPONDER_PORT), "--stamp-port", "862"));
        rcmd.addAll(responderArgs);
        Process r = lab.startIn(lab.b(), rcmd, "responder");
        Process s = lab.startIn(lab.a(), serviceCommand(lab.aManagementAddress(), "lab-a", lab.managementHostAddress(), serviceArgs), "service");
        NetLab.awaitPort(lab.aManagementAddress(), SERVICE_PORT, s, 90_000);
        if (!r.isAlive()) {
            throw new IllegalStateException("responder in B exited with " + r.exitValue());
        }
        return new LabServices(lab, lab.aManagementAddress());
    }

    /** POSTs an NMWG message to the service's plain HTTP transport. */
    String post(String nmwg) throws IOException, InterruptedException {
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/nmwg"))
                .timeout(Duration.ofSeconds(180)).header("Content-Type", "application/xml")
                .POST(HttpRequest.BodyPublishers.ofString(nmwg, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + resp.statusCode() + ": " + resp.body());
        }
        return resp.body();
    }

    /** A MeasurementRequest of an interface's utilization, with the given NMWG parameters. */
    static String utilizationRequest(String ifName, String... nameValues) {
        StringBuilder params = new StringBuilder();
        for (int i = 0; i < nameValues.length; i += 2) {
            params.append("<nmwg:parameter name=\"").append(nameValues[i]).append("\">").append(nameValues[i + 1])
                    .append("</nmwg:parameter>");
        }
        return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\""
                + " type=\"MeasurementRequest\" id=\"util\"><nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\">"
                + "<nmwgt:interface><nmwgt:ifName>" + ifName + "</nmwgt:ifName><nmwgt:direction>out</nmwgt:direction>"
                + "</nmwgt:interface></nmwg:subject><nmwg:eventType>http://ggf.org/ns/nmwg/characteristic/utilization/2.0</nmwg:eventType>"
                + "<nmwg:parameters id=\"p1\">" + params + "</nmwg:parameters></nmwg:metadata>"
                + "<nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>";
    }

    /** A MeasurementRequest from A to B for eventType with the given NMWG parameters (port: the responder's unless given). */
    static String measurementRequest(String dst, String eventType, String... nameValues) {
        StringBuilder params = new StringBuilder();
        boolean portGiven = false;
        for (int i = 0; i < nameValues.length; i += 2) {
            portGiven |= nameValues[i].equals("port");
            params.append("<nmwg:parameter name=\"").append(nameValues[i]).append("\">").append(nameValues[i + 1])
                    .append("</nmwg:parameter>");
        }
        return "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" xmlns:nmwgt=\"http://ggf.org/ns/nmwg/topology/2.0/\""
                + " type=\"MeasurementRequest\" id=\"lab\"><nmwg:metadata id=\"m1\"><nmwg:subject id=\"s1\">"
                + "<nmwgt:endPointPair><nmwgt:dst type=\"ipv4\" value=\"" + dst + "\"/></nmwgt:endPointPair></nmwg:subject>"
                + "<nmwg:eventType>" + eventType + "</nmwg:eventType><nmwg:parameters id=\"p1\">"
                + (portGiven ? "" : "<nmwg:parameter name=\"port\">" + RESPONDER_PORT + "</nmwg:parameter>") + params
                + "</nmwg:parameters></nmwg:metadata><nmwg:data id=\"d1\" metadataIdRef=\"m1\"/></nmwg:message>";
    }
}
