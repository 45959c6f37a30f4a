package org.nmws.service.nmwg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.Marshaller;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.xml.sax.helpers.DefaultHandler;

/** The packed form's columns: their text, made whole or streamed in chunks, is Long.toString's (issue 25). */
class FrameColumnsTest {
    private static final long[] EDGES = {0, 1, -1, 9, 10, -10, 99, 100, 999_999_999, 1_000_000_000, 2_000_000_010L,
        -123_456_789_012L, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE,
        Long.MIN_VALUE + 1};

    @Test
    void digitsAreTheLengthOfEveryValuesDecimalForm() {
        for (long v : EDGES) {
            assertEquals(Long.toString(v).length(), FrameColumns.digits(v), "value " + v);
        }
    }

    @Test
    void streamedAndWholeTextAreTheNumbersSeparatedBySpaces() throws Exception {
        Random random = new Random(25);
        long[] big = new long[50_000]; // many times the streaming buffer
        for (int i = 0; i < big.length; i++) {
            big[i] = random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(2_000_000) - 1;
        }
        JAXBContext context = JAXBContext.newInstance(FrameColumns.Column.class);
        for (long[] values : new long[][] {EDGES, big, {}, {42}}) {
            String expected = Arrays.stream(values).mapToObj(Long::toString).collect(Collectors.joining(" "));
            assertEquals(expected, FrameColumns.text(values));

            // as SAX events (the SOAP answer): the stand-in becomes the numbers, in chunks
            Marshaller m = context.createMarshaller();
            FrameColumns.Streaming streaming = new FrameColumns.Streaming();
            m.setListener(streaming);
            StringBuilder seen = new StringBuilder();
            var column = FrameColumns.column("frame.valueNs", values);
            m.marshal(column, streaming.around(new DefaultHandler() {
                @Override
                public void characters(char[] ch, int start, int length) {
                    seen.append(ch, start, length);
                }
            }));
            assertEquals(expected, seen.toString());
            assertNull(column.getValue().values, "the text is not kept after it was written");

            // to a stream (POST /nmwg): the text is made as the column is written
            Marshaller whole = context.createMarshaller();
            whole.setListener(new FrameColumns.Texts());
            whole.setProperty(Marshaller.JAXB_FRAGMENT, true);
            StringWriter out = new StringWriter();
            whole.marshal(column, out);
            assertEquals(expected.isEmpty() ? "" : expected, out.toString().replaceAll("^<[^>]*?(/>|>)", "").replaceAll("</[^>]*>$", ""));
            assertNull(column.getValue().values);
        }
    }

    /**
     * A packed column written as SAX events into Utf8SaxWriter (the SOAP fast path's answer with
     * columns) is the document JAXB's own writer makes of it: its digits, and around it names,
     * namespaces and text that need escaping or are not ASCII.
     */
    @Test
    void theByteWriterWritesWhatJaxbsOwnWriterWrites() throws Exception {
        JAXBContext context = JAXBContext.newInstance(FrameColumns.Column.class);
        for (long[] values : new long[][] {EDGES, {}, {7}}) {
            var column = FrameColumns.column("a&b<\"c\"\u00e9\u4e2d\ud83d\ude00", values);
            Marshaller whole = context.createMarshaller();
            whole.setListener(new FrameColumns.Texts());
            whole.setProperty(Marshaller.JAXB_FRAGMENT, true);
            java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
            whole.marshal(column, expected);

            Marshaller m = context.createMarshaller();
            FrameColumns.Streaming streaming = new FrameColumns.Streaming();
            m.setListener(streaming);
            java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
            Utf8SaxWriter writer = new Utf8SaxWriter(written);
            m.marshal(column, streaming.around(writer));
            writer.flush();

            org.w3c.dom.Document a = parse(expected.toByteArray());
            org.w3c.dom.Document b = parse(written.toByteArray());
            assertEquals(values.length == 0 ? "" : FrameColumns.text(values), b.getDocumentElement().getTextContent());
            assertEquals("a&b<\"c\"\u00e9\u4e2d\ud83d\ude00", b.getDocumentElement().getAttribute("name"));
            assertEquals(new String(expected.toByteArray(), java.nio.charset.StandardCharsets.UTF_8),
                    new String(written.toByteArray(), java.nio.charset.StandardCharsets.UTF_8));
            org.junit.jupiter.api.Assertions.assertTrue(a.getDocumentElement().isEqualNode(b.getDocumentElement()));
        }
    }

    /** A tab or line end in an attribute reads back as itself (JAXB's writer leaves it raw, read back as a space). */
    @Test
    void theByteWriterKeepsWhitespaceInAttributes() throws Exception {
        JAXBContext context = JAXBContext.newInstance(FrameColumns.Column.class);
        Marshaller m = context.createMarshaller();
        FrameColumns.Streaming streaming = new FrameColumns.Streaming();
        m.setListener(streaming);
        java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
        Utf8SaxWriter writer = new Utf8SaxWriter(written);
        m.marshal(FrameColumns.column("a\tb\nc\rd", new long[] {1, 2}), streaming.around(writer));
        writer.flush();
        org.w3c.dom.Element e = parse(written.toByteArray()).getDocumentElement();
        assertEquals("a\tb\nc\rd", e.getAttribute("name"));
        assertEquals("1 2", e.getTextContent());
    }

    private static org.w3c.dom.Document parse(byte[] xml) throws Exception {
        var f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new java.io.ByteArrayInputStream(xml));
    }
}
