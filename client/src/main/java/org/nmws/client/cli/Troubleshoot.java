package org.nmws.client.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.nmws.client.NmwsClient;
import org.w3c.dom.Element;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * nmws troubleshoot DST: checks, in order, what a test to DST needs, and ends with what to fix.
 * <ol>
 * <li>reachability: a TCP connection to any of the far end's test ports (a refusal is an
 *     answer too), else ICMP echo where this JVM may send it;</li>
 * <li>the far end's nmprobe-responder: its control port, then a short round trip through the service;</li>
 * <li>an OWAMP server (TCP 861) and a TWAMP server (TCP 862): their ports, then a short test each
 *     through the service; a STAMP reflector (UDP 862): a short STAMP test;</li>
 * <li>clock synchronisation: this (the service's) host's from the environment of its answers, the
 *     far end's from the tests' stated errors (receiverSynchronised, reflectorSynchronised, ...);</li>
 * <li>limits and credentials: a test the service refused to this client, and why.</li>
 * </ol>
 * Port checks are made from the host this command runs on; tests run from the service's host.
 */
@Command(name = "troubleshoot", description = "Checks in order what a test to DST needs: reachability, the far end's "
        + "responder, OWAMP/TWAMP servers and a STAMP reflector, clock synchronisation at both ends, limits and "
        + "credentials; ends with what to fix.",
        footer = {"", "Examples:", "  nmws troubleshoot 10.0.0.2",
                "  nmws troubleshoot 10.0.0.2 --port 8700 --owamp-port 861 --twamp-port 862 --stamp-port 862",
                "",
                "Ports are checked from this host, tests run from the service's host. Exit status:",
                "0 nothing to fix, 1 something to fix (listed last), 2 the service not reached."})
final class Troubleshoot implements Callable<Integer> {
    /** The ports the far end's servers listen on by default. */
    static final int RESPONDER_PORT = 8700;
    static final int OWAMP_PORT = 861;
    static final int TWAMP_PORT = 862;
    static final int STAMP_PORT = 862;
    /** A clock error (ms) above which one-way delays of a wide-area path say little. */
    static final BigDecimal CLOCK_ERROR_LIMIT_MS = BigDecimal.TEN;

    @CommandLine.ParentCommand
    NmwsCli parent;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Parameters(index = "0", paramLabel = "DST", description = "the far end (host name or address)") String dst;
    @Option(names = "--port", description = "nmprobe-responder's control port (default: " + RESPONDER_PORT
            + " to connect, the service's own for its test)") Integer port;
    @Option(names = "--owamp-port", defaultValue = "" + OWAMP_PORT, description = "OWAMP server port (default: ${DEFAULT-VALUE})")
    int owampPort;
    @Option(names = "--twamp-port", defaultValue = "" + TWAMP_PORT, description = "TWAMP server port (default: ${DEFAULT-VALUE})")
    int twampPort;
    @Option(names = "--stamp-port", defaultValue = "" + STAMP_PORT, description = "STAMP reflector UDP port (default: ${DEFAULT-VALUE})")
    int stampPort;
    @Option(names = "--timeout", defaultValue = "2", converter = Durations.class,
            description = "how long to wait for a connection: seconds or ISO 8601 (default: ${DEFAULT-VALUE})")
    String timeout;

    /** One check's line: what was checked, how it went (ok, FAIL, none, warn, skip), and what was seen. */
    private record Check(String what, String status, String detail) {
    }

    private final List<Check> checks = new ArrayList<>();
    private final List<String> fixes = new ArrayList<>();
    /** What the service's tests said, by name (rtt, owamp, twamp, stamp): their figures, or an error. */
    private final Map<String, Answer> answers = new LinkedHashMap<>();
    /** The first answer's environment clock of the service's host, if any answer carried one. */
    private Element localClock;

    /** A test's outcome: its figures by name, or the service's error line and code. */
    private record Answer(Map<String, String> figures, String error, String code) {
        boolean ok() {
            return error == null;
        }

        Optional<BigDecimal> figure(String name) {
            return Values.decimal(figures.get(name));
        }
    }

    @Override
    public Integer call() {
        parent.format();
        int connectMs = (int) Math.max(1, Durations.duration(timeout).toMillis());
        int responder = port == null ? RESPONDER_PORT : port;

        // 1. reachability
        InetAddress address;
        try {
            address = InetAddress.getByName(dst);
        } catch (UnknownHostException e) {
            checks.add(new Check("name", "FAIL", dst + " does not resolve"));
            fixes.add("make " + dst + " resolve (DNS or /etc/hosts), or give its address");
            return report();
        }
        Map<Integer, String> tcp = new LinkedHashMap<>();
        for (int p : new int[] {responder, owampPort, twampPort}) {
            tcp.putIfAbsent(p, connect(address, p, connectMs));
        }
        Optional<Map.Entry<Integer, String>> answered = tcp.entrySet().stream()
                .filter(e -> !e.getValue().equals("no answer")).findFirst();
        if (answered.isPresent()) {
            checks.add(new Check("reachable", "ok", address.getHostAddress() + " answers on TCP " + answered.get().getKey()
                    + " (" + answered.get().getValue() + ")"));
        } else if (icmp(address, connectMs)) {
            checks.add(new Check("reachable", "ok", address.getHostAddress() + " answers ICMP echo; no TCP port answers"));
        } else {
            checks.add(new Check("reachable", "FAIL", address.getHostAddress() + ": no answer on TCP " + tcp.keySet()
                    + " within " + connectMs + " ms, nor to ICMP echo (where this host may send it)"));
            fixes.add(dst + " is not reachable from here: check routing and firewalls on the way (TCP " + tcp.keySet()
                    + ", UDP " + stampPort + ")");
        }

        // 2. the far end's nmws responder, then a short round trip through the service
        String state = tcp.get(responder);
        Answer rtt = test("rtt", "path.delay.roundTrip", params("count", "5", "interval", "0.01"), port);
        if (rtt == null) {
            return 2;
        }
        if (rtt.ok()) {
            checks.add(new Check("nmws responder", "ok", "TCP " + responder + " " + state + "; round trip "
                    + rtt.figures().get("medianRtt") + " ms median, " + rtt.figures().get("lossPercent") + " % loss"));
        } else {
            checks.add(new Check("nmws responder", "FAIL", "TCP " + responder + " " + state + "; the service's round trip: "
                    + rtt.error()));
            if (!denied(rtt)) {
                fixes.add(state.equals("open") ? "the responder at " + dst + ":" + responder + " answers but the test failed: "
                        + rtt.error() : "start nmprobe-responder on " + dst + " (port " + responder + ", 'systemctl start "
                        + "nmprobe-responder'), or give its port with --port");
            }
        }

        // 3. OWAMP, TWAMP and STAMP servers
        server("OWAMP server", "owamp", tcp.get(owampPort), owampPort, "path.delay.oneWay", "OWAMP", "TCP");
        server("TWAMP server", "twamp", tcp.get(twampPort), twampPort, "path.delay.roundTrip", "TWAMP", "TCP");
        server("STAMP reflector", "stamp", null, stampPort, "path.delay.roundTrip", "STAMP", "UDP");

        // 4. clocks: this host's from the environment, the far end's from what its tests stated
        clocks();

        // 5. limits and credentials
        List<String> refused = new ArrayList<>();
        for (Map.Entry<String, Answer> a : answers.entrySet()) {
            if (denied(a.getValue())) {
                refused.add(a.getKey() + ": " + a.getValue().error());
            }
        }
        if (refused.isEmpty()) {
            checks.add(new Check("limits, credentials", "ok", "the service ran every test this client asked for"));
        } else {
            checks.add(new Check("limits, credentials", "FAIL", String.join("; ", refused)));
            if (answers.values().stream().anyMatch(a -> "error.common.authorization".equals(a.code())
                    || (a.code() != null && a.code().startsWith("HTTP 40")))) {
                fixes.add("this client may not run tests on " + parent.url + ": give credentials with the measure role "
                        + "(--api-key, --user; over https from other hosts)");
            }
            if (answers.values().stream().anyMatch(a -> "error.mp.rate_limited".equals(a.code()))) {
                fixes.add("this client has run as many tests as it may for now (nmws.limits): wait, or raise its limit");
            }
            if (answers.values().stream().anyMatch(a -> "error.mp.busy".equals(a.code()))) {
                fixes.add("another test held the path: see 'nmws tests', and try again when it ends");
            }
        }
        return report();
    }

    /** This host's clock as GET /api/host states it (attribute names as env:clock's), or null when it does not answer. */
    private Map<String, String> hostClock() {
        try {
            String base = parent.url.replaceAll("/+$", "") + "/api/host";
            java.net.http.HttpResponse<String> r = parent.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base)).GET(),
                    java.time.Duration.ofSeconds(10), base);
            if (r == null || r.statusCode() != 200) {
                return null;
            }
            com.fasterxml.jackson.databind.JsonNode c = Answers.JSON.readTree(r.body()).path("host").path("clock");
            if (c.isMissingNode() || c.isNull()) {
                return null;
            }
            Map<String, String> m = new java.util.HashMap<>();
            m.put("synchronized", c.path("synchronised").asText(""));
            m.put("errorNs", c.path("errorNs").asText(""));
            m.put("state", c.path("state").asText(""));
            m.put("source", c.path("source").asText(""));
            m.put("reference", c.path("reference").asText(""));
            return m;
        } catch (java.io.IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** A server of a standard protocol: its TCP port (when it has one), then a short test to it through the service. */
    private void server(String what, String name, String tcpState, int serverPort, String characteristic, String protocol,
                        String transport) {
        Answer a = test(name, characteristic, params("protocol", protocol, "count", "5", "interval", "0.01"), serverPort);
        String where = transport + " " + serverPort + (tcpState == null ? "" : " " + tcpState);
        if (a == null) {
            return;
        }
        if (a.ok()) {
            String delay = a.figures().containsKey("medianRtt") ? "round trip " + a.figures().get("medianRtt") + " ms median"
                    : "one-way " + a.figures().get("medianDelayMs") + " ms median";
            checks.add(new Check(what, "ok", where + "; " + delay + ", " + a.figures().get("lossPercent") + " % loss"));
        } else if (denied(a)) {
            checks.add(new Check(what, "FAIL", where + "; " + a.error()));
        } else {
            // a host without OWAMP, TWAMP or STAMP is common: say so, and what it would need, without calling it broken
            checks.add(new Check(what, "none", where + "; " + a.error()));
            fixes.add("(optional) for " + protocol + " tests to " + dst + ": run " + switch (protocol) {
                case "OWAMP" -> "owampd or nmprobe-owampd there (TCP " + serverPort + ")";
                case "TWAMP" -> "twampd or nmprobe-owampd there (TCP " + serverPort + ")";
                default -> "a STAMP reflector there (nmprobe-responder --stamp-port " + serverPort + ", or a router's)";
            });
        }
    }

    /** Both clocks: this host's as the environment states it, the far end's from the tests that ran. */
    private void clocks() {
        // from a test's answer; when none answered (every test failed), from GET /api/host
        Map<String, String> here = localClock != null ? Map.of("synchronized", localClock.getAttribute("synchronized"),
                "errorNs", localClock.getAttribute("errorNs"), "state", localClock.getAttribute("state"),
                "source", localClock.getAttribute("source"), "reference", localClock.getAttribute("reference"))
                : hostClock();
        if (here == null) {
            checks.add(new Check("clock here", "skip", "no test answered with this host's environment, nor GET /api/host"));
        } else {
            boolean sync = "true".equals(here.get("synchronized"));
            Optional<BigDecimal> errorMs = Values.decimal(here.get("errorNs")).map(ns -> ns.movePointLeft(6));
            String detail = "state " + orDash(here.get("state")) + ", source " + orDash(here.get("source"))
                    + ", reference " + orDash(here.get("reference"))
                    + errorMs.map(e -> ", error \u00b1" + Values.plain(e) + " ms").orElse("")
                    + (localClock == null ? " (from GET /api/host: no test answered)" : "");
            boolean wide = errorMs.map(e -> e.compareTo(CLOCK_ERROR_LIMIT_MS) > 0).orElse(false);
            checks.add(new Check("clock here", sync && !wide ? "ok" : "FAIL", (sync ? "synchronised; " : "NOT synchronised; ") + detail));
            if (!sync || wide) {
                fixes.add("synchronise the service host's clock (chrony or ntpd; ptp4l for microseconds): one-way delays from it "
                        + "are bounded only by its error");
            }
        }
        // the far end states its error in the STAMP and TWAMP reflectors' packets and in OWAMP's fetched records
        String[][] sources = {{"twamp", "reflectorSynchronised", "reflectorErrorMs"}, {"stamp", "reflectorSynchronised", "reflectorErrorMs"},
                {"owamp", "receiverSynchronised", "receiverClockErrorMs"}};
        for (String[] s : sources) {
            Answer a = answers.get(s[0]);
            if (a == null || !a.ok() || a.figure(s[1]).isEmpty()) {
                continue;
            }
            boolean sync = a.figure(s[1]).get().signum() != 0;
            Optional<BigDecimal> errorMs = a.figure(s[2]);
            boolean wide = errorMs.map(e -> e.compareTo(CLOCK_ERROR_LIMIT_MS) > 0).orElse(false);
            checks.add(new Check("clock at " + dst, sync && !wide ? "ok" : "FAIL", (sync ? "synchronised" : "NOT synchronised")
                    + errorMs.map(e -> ", error \u00b1" + Values.plain(e) + " ms").orElse("") + " (as its " + s[0].toUpperCase()
                    + " packets state it)"));
            if (!sync || wide) {
                fixes.add("synchronise " + dst + "'s clock (chrony or ntpd; ptp4l for microseconds): one-way delays to it "
                        + "are bounded only by both clocks' errors");
            }
            return;
        }
        checks.add(new Check("clock at " + dst, "skip", "no STAMP, TWAMP or OWAMP test answered: its clock states its error "
                + "only in those (or in a one-way test: nmws latency " + dst + ")"));
    }

    /** Whether the service refused the test to this client (credentials, limits, a busy path) rather than it failing. */
    private static boolean denied(Answer a) {
        return a != null && !a.ok() && a.code() != null && (a.code().equals("error.common.authorization")
                || a.code().equals("error.mp.rate_limited") || a.code().equals("error.mp.busy") || a.code().startsWith("HTTP 40"));
    }

    /**
     * Runs a short test through the service and keeps what it said under name; null when the
     * service could not be reached at all (said on standard error).
     */
    private Answer test(String name, String characteristic, Map<String, String> p, Integer testPort) {
        if (testPort != null) {
            p.put("port", testPort.toString());
        }
        Answer a;
        try {
            String xml = NmwsClient.toXml(parent.client().measure(dst, characteristic, p));
            List<Answers.Result> results = Answers.read(xml);
            if (localClock == null) {
                localClock = Clocks.local(xml).orElse(null);
            }
            Answers.Result error = results.stream().filter(Answers.Result::isError).findFirst().orElse(null);
            if (error != null) {
                a = new Answer(Map.of(), error.message() == null ? error.eventType() : error.message(), error.eventType());
            } else {
                Map<String, String> figures = new LinkedHashMap<>();
                for (Answers.Result r : results) {
                    for (Element d : r.datums()) {
                        if (d.hasAttribute("name") && d.hasAttribute("value")) {
                            figures.putIfAbsent(d.getAttribute("name"), Values.plain(d.getAttribute("value")));
                        }
                    }
                }
                a = new Answer(figures, null, null);
            }
        } catch (RuntimeException e) {
            Optional<Answer> refused = refusal(e);
            if (refused.isEmpty()) {
                spec.commandLine().getErr().println("nmws: cannot reach " + parent.url + " (" + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
                NmwsCli.startHint(parent.url, spec.commandLine().getErr());
                return null;
            }
            a = refused.get();
        }
        answers.put(name, a);
        return a;
    }

    /** The service's own refusal over SOAP (a Fault, an HTTP 401 or 403) as an answer; empty when it was not reached. */
    private static Optional<Answer> refusal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof jakarta.xml.ws.soap.SOAPFaultException fault) {
                return Optional.of(new Answer(Map.of(), fault.getFault().getFaultString(), "fault"));
            }
            if (t instanceof org.apache.cxf.transport.http.HTTPException http) {
                return Optional.of(new Answer(Map.of(), "HTTP " + http.getResponseCode(), "HTTP " + http.getResponseCode()));
            }
        }
        return Optional.empty();
    }

    /** "open", "refused" or "no answer": a TCP connection to address:p within ms. */
    static String connect(InetAddress address, int p, int ms) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, p), ms);
            return "open";
        } catch (ConnectException e) {
            return "refused";
        } catch (SocketTimeoutException e) {
            return "no answer";
        } catch (IOException e) {
            return "no answer";
        }
    }

    /** ICMP echo where this JVM may send it (else Java tries TCP port 7): whether address answered. */
    private static boolean icmp(InetAddress address, int ms) {
        try {
            return address.isReachable(ms);
        } catch (IOException e) {
            return false;
        }
    }

    /** The checks as a table, then what to fix; 0 when nothing is to be fixed, else 1. */
    private int report() {
        PrintWriter out = parent.out();
        Table t = new Table(List.of("CHECK", "RESULT", "DETAIL"));
        checks.forEach(c -> t.row(List.of(c.what(), c.status(), c.detail())));
        t.print(out);
        out.println();
        List<String> needed = fixes.stream().filter(f -> !f.startsWith("(optional)")).toList();
        if (fixes.isEmpty()) {
            out.println("nothing to fix");
        } else {
            out.println("what to fix:");
            for (int i = 0; i < fixes.size(); i++) {
                out.println("  " + (i + 1) + ". " + fixes.get(i));
            }
        }
        out.flush();
        return needed.isEmpty() ? 0 : 1;
    }

    private static Map<String, String> params(String... kv) {
        Map<String, String> p = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static String orDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    /** The service host's clock as an NMWG answer's environment states it. */
    static final class Clocks {
        private Clocks() {
        }

        /** The env:clock of the env:host whose role is src, if the answer has one. */
        static Optional<Element> local(String xml) {
            try {
                javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
                f.setNamespaceAware(true);
                org.w3c.dom.Document doc = f.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(
                        xml.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                org.w3c.dom.NodeList clocks = doc.getElementsByTagNameNS(Answers.ENVIRONMENT, "clock");
                for (int i = 0; i < clocks.getLength(); i++) {
                    Element c = (Element) clocks.item(i);
                    if (c.getParentNode() instanceof Element host && "src".equals(host.getAttribute("role"))) {
                        return Optional.of(c);
                    }
                }
                return Optional.empty();
            } catch (Exception e) {
                return Optional.empty();
            }
        }
    }
}
