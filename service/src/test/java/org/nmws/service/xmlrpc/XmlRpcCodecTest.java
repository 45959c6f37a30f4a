package org.nmws.service.xmlrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The XML-RPC codec against well-formed calls and hostile input (issue 5). */
class XmlRpcCodecTest {
    private final XmlRpcCodec codec = new XmlRpcCodec(4096, 16, 50);

    @Test
    void aCallWithEveryValueTypeDecodes() throws Exception {
        XmlRpcCodec.Call c = codec.decode(bytes("<?xml version=\"1.0\"?><methodCall><methodName>t.m</methodName><params>"
                + "<param><value><struct><member><name>a</name><value><i4>-7</i4></value></member>"
                + "<member><name>b</name><value>plain</value></member>"
                + "<member><name>c</name><value><array><data><value><boolean>1</boolean></value>"
                + "<value><double>0.25</double></value></data></array></value></member>"
                + "<member><name>d</name><value><dateTime.iso8601>20261120T10:00:00</dateTime.iso8601></value></member>"
                + "<member><name>e</name><value><base64>aGk=</base64></value></member></struct></value></param>"
                + "<param><value><string>&lt;x&gt;</string></value></param></params></methodCall>"));
        assertEquals("t.m", c.method());
        @SuppressWarnings("unchecked")
        Map<String, Object> s = (Map<String, Object>) c.params().get(0);
        assertEquals(-7, s.get("a"));
        assertEquals("plain", s.get("b"));
        assertEquals(List.of(true, 0.25), s.get("c"));
        assertEquals(Instant.parse("2026-11-20T10:00:00Z"), s.get("d"));
        assertEquals("hi", new String((byte[]) s.get("e"), StandardCharsets.UTF_8));
        assertEquals("<x>", c.params().get(1));
    }

    @Test
    void aResponseEscapesTextAndRoundTripsThroughTheDecoder() throws Exception {
        String xml = new String(XmlRpcCodec.response(Map.of("k", "a<b&c")), StandardCharsets.UTF_8);
        assertTrue(xml.contains("a&lt;b&amp;c"), xml);
        String fault = new String(XmlRpcCodec.fault(5, "Request: bad"), StandardCharsets.UTF_8);
        assertTrue(fault.contains("<name>faultCode</name><value><int>5</int></value>"), fault);
    }

    @Test
    void strayElementsInsideMembersParamsAndArraysAreRefusedNotSkipped() {
        // review: the decoder used to skip whatever stood before a closing tag
        assertFault(XmlRpcCodec.INVALID_REQUEST, "<methodCall><methodName>m</methodName><params><param><value><struct>"
                + "<member><name>a</name><value>x</value><bogus/></member></struct></value></param></params></methodCall>");
        assertFault(XmlRpcCodec.INVALID_REQUEST, "<methodCall><methodName>m</methodName><params><param><value>x</value>"
                + "<junk/></param></params></methodCall>");
    }

    @Test
    void base64WithCharactersOutsideItsAlphabetIsRefused() {
        // review: the MIME decoder skipped the bad characters and returned empty bytes
        assertFault(XmlRpcCodec.INVALID_PARAMS, "<methodCall><methodName>m</methodName><params><param><value>"
                + "<base64>!!!!</base64></value></param></params></methodCall>");
    }

    @Test
    void aDoctypeWithAnExternalEntityIsRefusedAndNeverFetched() throws Exception {
        try (ServerSocket trap = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            trap.setSoTimeout(300);
            String xml = "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY x SYSTEM \"http://127.0.0.1:" + trap.getLocalPort()
                    + "/secret\">]><methodCall><methodName>&x;</methodName></methodCall>";
            assertFault(XmlRpcCodec.PARSE_ERROR, xml);
            assertThrows(SocketTimeoutException.class, trap::accept, "the entity must not be fetched");
        }
    }

    @Test
    void internalEntityExpansionIsRefused() {
        assertFault(XmlRpcCodec.PARSE_ERROR, "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY a \"aaaaaaaaaa\">"
                + "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><methodCall><methodName>x</methodName>"
                + "<params><param><value>&b;</value></param></params></methodCall>");
    }

    @Test
    void limitsOnSizeDepthAndValueCountHold() {
        assertFault(XmlRpcCodec.PARSE_ERROR, "<methodCall><methodName>x</methodName><params><param><value>"
                + "a".repeat(5000) + "</value></param></params></methodCall>");
        assertFault(XmlRpcCodec.PARSE_ERROR, "<methodCall><methodName>x</methodName><params><param><value>"
                + "<array><data><value>".repeat(8) + "1" + "</value></data></array>".repeat(8)
                + "</value></param></params></methodCall>");
        assertFault(XmlRpcCodec.INVALID_REQUEST, "<methodCall><methodName>x</methodName><params><param><value><array><data>"
                + "<value>1</value>".repeat(60) + "</data></array></value></param></params></methodCall>");
        assertFault(XmlRpcCodec.PARSE_ERROR, "");
    }

    @Test
    void malformedCallsAreFaultsThatSayWhy() {
        assertFault(XmlRpcCodec.PARSE_ERROR, "not xml");
        assertFault(XmlRpcCodec.INVALID_REQUEST, "<methodResponse/>");
        assertFault(XmlRpcCodec.INVALID_REQUEST, "<methodCall><methodName>rm -rf</methodName></methodCall>");
        assertFault(XmlRpcCodec.INVALID_PARAMS, "<methodCall><methodName>x</methodName><params><param><value>"
                + "<int>12x</int></value></param></params></methodCall>");
        assertFault(XmlRpcCodec.INVALID_REQUEST, "<methodCall><methodName>x</methodName><params><param><value>"
                + "<float>1</float></value></param></params></methodCall>");
        assertFault(XmlRpcCodec.INVALID_PARAMS, "<methodCall><methodName>x</methodName><params><param><value>"
                + "<boolean>yes</boolean></value></param></params></methodCall>");
        assertFault(XmlRpcCodec.PARSE_ERROR, "<methodCall><methodName>x</methodName></methodCall><extra/>");
    }

    @Test
    void aCdataSectionCutShortIsAParseErrorThatNamesNoJavaClass() {
        // issue 21: Woodstox reports it unchecked, and its message began "[com.ctc.wstx.exc.WstxLazyException]"
        XmlRpcCodec.Fault f = assertThrows(XmlRpcCodec.Fault.class, () -> codec.decode(bytes(
                "<methodCall><methodName>system.methodHelp</methodName><params><param><value><string><![CDATA[x")));
        assertEquals(XmlRpcCodec.PARSE_ERROR, f.code());
        assertTrue(f.getMessage().startsWith("request is not acceptable XML: Unexpected EOF in CDATA section"), f.getMessage());
        assertTrue(!f.getMessage().contains("Exception"), f.getMessage());
    }

    private void assertFault(int code, String xml) {
        XmlRpcCodec.Fault f = assertThrows(XmlRpcCodec.Fault.class, () -> codec.decode(bytes(xml)), xml);
        assertEquals(code, f.code(), f.getMessage());
        assertTrue(!f.getMessage().isBlank());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
