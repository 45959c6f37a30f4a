package org.nmws.service.nmwg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nmws.service.kind.Kinds;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * The SOAP fast path's answer is written by JAXB's UTF-8 writer made without JAXB 4's escape
 * handler (for speed, issue 25): it must be byte for byte what JAXB's own stream writer makes,
 * for every character an id, a parameter or a host name may hold.
 */
class NmwgWriterBytesTest {

    /** Every printable ASCII character and characters of two, three and four UTF-8 bytes. */
    private static final String ODD = printableAscii() + "\u00a0\u00e9\u07ff\u0800\u4e2d\ufffd\ud83d\ude00 ]]> &amp; \"'";

    private static String printableAscii() {
        StringBuilder b = new StringBuilder();
        for (char c = 0x20; c < 0x7f; c++) {
            b.append(c);
        }
        return b.toString();
    }

    /** An answer holding the string in its ids, a status text, parameters, a host name, figure names. */
    private static NmwgWriter answerHolding(String odd) {
        Map<String, Double> summary = new LinkedHashMap<>();
        summary.put("minRtt", 0.123456789);
        summary.put(odd, 2.5);
        Environment env = new Environment(
                new Environment.Host(odd, "mp-" + odd, "192.0.2.1", null, null, null, null, null, null),
                Environment.Host.remote("192.0.2.7", "192.0.2.7"));
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("count", "4");
        parameters.put(odd, odd);
        Observation o = new Observation(7, "mp-test", ProbeTest.ROUND_TRIP,
                new PathSubject(new Endpoint(odd, "hostname"), new Endpoint("192.0.2.7", "ipv4")), "192.0.2.1", "192.0.2.7",
                "nmprobe", "test", parameters, env, Instant.ofEpochSecond(1_700_000_000L, 5),
                Instant.ofEpochSecond(1_700_000_001L), summary,
                List.of(new Observation.Frame(0, 1_700_000_000_000_000_000L, 1_234_567, 64, 61),
                        new Observation.Frame(1, 1_700_000_000_001_000_000L, Observation.Frame.LOST, 64, -1)),
                Map.of());
        NmwgWriter w = new NmwgWriter("SetupDataResponse", "id" + odd, new DataForms(Kinds.measurementKinds()));
        w.status("meta" + odd, "error." + odd, odd);
        w.stored("meta" + odd, "path.delay.roundTrip", List.of(o, o), true, false);
        return w;
    }

    private static byte[] fast(NmwgWriter w) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        w.writeFragmentTo(out);
        return out.toByteArray();
    }

    private static byte[] jaxbsOwn(NmwgWriter w) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        NmwgWriter.fragmentMarshaller().marshal(w.message(), out);
        return out.toByteArray();
    }

    @Test
    void theFastWriterWritesWhatJaxbsOwnWriterWritesForEveryPrintableCharacter() throws Exception {
        NmwgWriter w = answerHolding(ODD);
        byte[] fast = fast(w);
        byte[] expected = jaxbsOwn(w);
        assertEquals(new String(expected, StandardCharsets.UTF_8), new String(fast, StandardCharsets.UTF_8));
        assertTrue(java.util.Arrays.equals(expected, fast), "the same bytes");
        assertTrue(fast.length > 2000, "the whole answer was written: " + fast.length + " bytes");

        // the whole document (POST /nmwg) too, its declaration and all
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        NmwgWriter.marshaller().marshal(w.message(), whole);
        assertEquals(whole.toString(StandardCharsets.UTF_8), new String(w.toBytes(), StandardCharsets.UTF_8));
        assertTrue(new String(w.toBytes(), StandardCharsets.UTF_8).startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\""));
    }

    /**
     * Tabs, line feeds and carriage returns come back as sent: JAXB's own writer writes a tab in
     * an attribute raw, which a reader turns into a space; the fast writer writes a reference.
     */
    @Test
    void whitespaceInAttributesAndTextReadsBackAsItWasSent() throws Exception {
        String ws = "a\tb\nc\rd\r\ne";
        NmwgWriter w = answerHolding(ws);
        var factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        org.w3c.dom.Document doc = factory.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(fast(w)));
        assertEquals("id" + ws, doc.getDocumentElement().getAttribute("messageIdRef"));
        org.w3c.dom.Element status = (org.w3c.dom.Element) doc.getElementsByTagNameNS("*", "datum").item(0);
        assertEquals(ws, status.getTextContent());
        org.w3c.dom.Document own = factory.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(jaxbsOwn(w)));
        assertEquals("id" + ws.replace('\t', ' '), own.getDocumentElement().getAttribute("messageIdRef"),
                "JAXB's own writer loses the tab (were this to change, the fast writer could be dropped)");
    }
}
