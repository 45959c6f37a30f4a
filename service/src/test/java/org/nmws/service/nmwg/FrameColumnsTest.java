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
}
