package org.nmws.service.nmwg;

import org.nmws.service.usecase.ErrorCodes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SafeXmlTest {
    private final SafeXml xml = new SafeXml(64 * 1024, 16);

    @Test
    void aDoctypeWithAnExternalEntityIsRefusedAndTheEntityIsNeverFetched() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout(300);
            String doc = "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY x SYSTEM \"http://127.0.0.1:"
                    + listener.getLocalPort() + "/secret\">]><m>&x;</m>";
            NmwgException e = assertThrows(NmwgException.class, () -> xml.parse(doc.getBytes(StandardCharsets.UTF_8)));
            assertEquals(ErrorCodes.PARSE_ERROR, e.code());
            assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
            assertThrows(SocketTimeoutException.class, listener::accept, "the parser must not have connected");
        }
    }

    @Test
    void aBillionLaughsDocumentIsRefusedBeforeExpansion() {
        String doc = "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;\">]><l>&b;</l>";
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse(doc.getBytes(StandardCharsets.UTF_8)));
        assertEquals(ErrorCodes.PARSE_ERROR, e.code());
    }

    @Test
    void textThatIsNotXmlIsAParseError() {
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse("hello, service".getBytes(StandardCharsets.UTF_8)));
        assertEquals(ErrorCodes.PARSE_ERROR, e.code());
    }

    @Test
    void anEmptyBodyIsAParseError() {
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse(new byte[0]));
        assertTrue(e.getMessage().contains("empty"));
    }

    @Test
    void aDocumentOverTheSizeLimitIsRefusedWithoutParsing() {
        byte[] big = new byte[64 * 1024 + 1];
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse(big));
        assertTrue(e.getMessage().contains("exceeds the limit of 65536 bytes"), e.getMessage());
    }

    @Test
    void nestingDeeperThanTheLimitIsRefused() {
        String doc = "<a>".repeat(17) + "</a>".repeat(17);
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse(doc.getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("deeper than 16"), e.getMessage());
    }

    @Test
    void nestingAtTheLimitIsAccepted() throws Exception {
        String doc = "<a>".repeat(16) + "</a>".repeat(16);
        assertEquals("a", xml.parse(doc.getBytes(StandardCharsets.UTF_8)).getDocumentElement().getLocalName());
    }

    private final SafeXml full = new SafeXml(4 * 1024 * 1024, 64);

    @Test
    void aMillionEmptyElementsAreRefusedAsAParseErrorWhileStreaming() {
        // issue 21: the DOM was built before elements were counted. The document is cut after
        // the bomb: had it been parsed to the end, the error would be the missing end tag.
        String doc = "<nmwg:message xmlns:nmwg=\"http://ggf.org/ns/nmwg/base/2.0/\" type=\"EchoRequest\">"
                + "<a/>".repeat(1_000_000);
        NmwgException e = assertThrows(NmwgException.class, () -> full.parse(doc.getBytes(StandardCharsets.UTF_8)));
        assertEquals(ErrorCodes.PARSE_ERROR, e.code());
        assertEquals("request holds more than 50000 elements", e.getMessage());
    }

    @Test
    void elementsAtTheLimitAreAccepted() throws Exception {
        String doc = "<m>" + "<a/>".repeat(SafeXml.MAX_ELEMENTS - 1) + "</m>";
        assertEquals(SafeXml.MAX_ELEMENTS - 1, full.parse(doc.getBytes(StandardCharsets.UTF_8)).getDocumentElement()
                .getChildNodes().getLength());
    }

    /** Enough tags that the document might be an element bomb: it is streamed, and refused before its end. */
    private static final String PAST_THE_TAG_BOUND = "<<<" + "<x/>".repeat(SafeXml.MAX_ELEMENTS);

    @Test
    void nestingIsCountedBeforeTheDocumentEnds() {
        String doc = "<a>".repeat(65) + PAST_THE_TAG_BOUND;
        NmwgException e = assertThrows(NmwgException.class, () -> full.parse(doc.getBytes(StandardCharsets.UTF_8)));
        assertEquals("request nests elements deeper than 64", e.getMessage());
        // a small document is parsed once and its tree checked: the same answer
        String small = "<a>".repeat(65) + "</a>".repeat(65);
        e = assertThrows(NmwgException.class, () -> full.parse(small.getBytes(StandardCharsets.UTF_8)));
        assertEquals("request nests elements deeper than 64", e.getMessage());
    }

    @Test
    void tooManyAttributesAreRefusedWhileStreaming() {
        StringBuilder doc = new StringBuilder("<m><b");
        for (int i = 0; i < 65; i++) {
            doc.append(" a").append(i).append("=\"v\"");
        }
        doc.append("/>");
        String small = doc + "</m>";
        NmwgException e = assertThrows(NmwgException.class, () -> full.parse((doc + PAST_THE_TAG_BOUND)
                .getBytes(StandardCharsets.UTF_8)));
        assertEquals("an element has more than 64 attributes", e.getMessage());
        e = assertThrows(NmwgException.class, () -> full.parse(small.getBytes(StandardCharsets.UTF_8)));
        assertEquals("an element has more than 64 attributes", e.getMessage());
    }

    @Test
    void aLongAttributeIsRefusedWhileStreaming() {
        String doc = "<m><b a=\"" + "y".repeat(SafeXml.MAX_ATTRIBUTE_CHARS + 1) + "\"/>";
        NmwgException e = assertThrows(NmwgException.class, () -> full.parse((doc + PAST_THE_TAG_BOUND)
                .getBytes(StandardCharsets.UTF_8)));
        assertEquals("an attribute value exceeds 65536 characters", e.getMessage());
        e = assertThrows(NmwgException.class, () -> full.parse((doc + "</m>").getBytes(StandardCharsets.UTF_8)));
        assertEquals("an attribute value exceeds 65536 characters", e.getMessage());
    }

    @Test
    void anUndeclaredEntityIsAParseError() {
        NmwgException e = assertThrows(NmwgException.class, () -> xml.parse("<m>&x;</m>".getBytes(StandardCharsets.UTF_8)));
        assertEquals(ErrorCodes.PARSE_ERROR, e.code());
        assertTrue(e.getMessage().endsWith("request refers to an undeclared entity '&x;'"), e.getMessage());
    }

    @Test
    void theTagCountBoundsTheElementsFromAbove() {
        assertEquals(4, SafeXml.tags("<?xml version=\"1.0\"?><a><b/><!-- <c> --><d>x</d></a>".getBytes(StandardCharsets.UTF_8)));
        assertEquals(1, SafeXml.tags("<a>é</a>".getBytes(StandardCharsets.UTF_8)));
        assertEquals(1, SafeXml.tags("<".getBytes(StandardCharsets.UTF_8)));
    }
}
