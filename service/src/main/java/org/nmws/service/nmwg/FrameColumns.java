package org.nmws.service.nmwg;

import jakarta.xml.bind.JAXBElement;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlType;
import jakarta.xml.bind.annotation.XmlValue;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.Observation;

/**
 * The packed form of raw data (rawForm=packed with raw=true): an observation's frames as five
 * nmws:series columns of integers, and its samples likewise, instead of one datum element per
 * frame. It is the nmws result schema's LongList, the form nmwg:store documents already carry
 * samples in. A 100,000-frame round-trip test is 13.3 MB as ping datums and about 2.6 MB packed,
 * the size of the JSON API's columns (issue 25).
 * Columns: frame.seqNum; frame.sendOffsetNs, the send time in nanoseconds after the
 * observation's start (the timeValue of its summary datums); frame.valueNs, the measured value
 * (an RTT, a one-way delay) in nanoseconds, -1 for a lost frame; frame.numBytes; frame.ttl, -1
 * when unknown. Samples follow as sample.NAME, each as stored.
 */
final class FrameColumns {
    static final String PARAMETER = "rawForm";
    static final String PACKED = "packed";
    static final String DATUMS = "datums";

    private FrameColumns() {
    }

    /** Whether a request's parameters ask for the packed form; a value other than packed or datums is refused. */
    static boolean packed(Map<String, String> parameters) throws NmwgException {
        String form = parameters.get(PARAMETER);
        if (form == null || form.trim().equals(DATUMS)) {
            return false;
        }
        if (form.trim().equals(PACKED)) {
            return true;
        }
        throw new NmwgException(org.nmws.service.usecase.ErrorCodes.PARAMETER, "parameter " + PARAMETER + " is '"
                + org.nmws.service.observation.Params.echo(form.trim()) + "': it must be " + DATUMS
                + " (one datum per frame, the default) or " + PACKED + " (columns of integers)");
    }

    /** Adds the columns of an observation's frames and samples to a data element. */
    static void write(NmwgData out, Observation o) {
        List<Observation.Frame> frames = o.frames();
        int n = frames.size();
        long start = o.start().getEpochSecond() * 1_000_000_000L + o.start().getNano();
        long[] seq = new long[n];
        long[] offset = new long[n];
        long[] value = new long[n];
        long[] bytes = new long[n];
        long[] ttl = new long[n];
        for (int i = 0; i < n; i++) {
            Observation.Frame f = frames.get(i);
            seq[i] = f.seq();
            offset[i] = f.sendEpochNanos() - start;
            value[i] = f.valueNanos();
            bytes[i] = f.bytes();
            ttl[i] = f.ttl();
        }
        out.add(column("frame.seqNum", seq));
        out.add(column("frame.sendOffsetNs", offset));
        out.add(column("frame.valueNs", value));
        out.add(column("frame.numBytes", bytes));
        out.add(column("frame.ttl", ttl));
        for (Map.Entry<String, long[]> s : o.samples().entrySet()) {
            out.add(column("sample." + s.getKey(), s.getValue()));
        }
    }

    /** The element every column is written as. */
    private static final QName SERIES = new QName(Namespaces.NMWS_RESULT, "series");

    /**
     * One column as an nmws:series. Only the numbers are kept: their text is made when the
     * answer is written ({@link #text}), or streamed into the SAX consumer in small chunks when
     * it is written as events ({@link Streaming}); a packed answer of 100,000 frames built and
     * copied megabytes of text three times before (issue 25).
     */
    static JAXBElement<Column> column(String name, long[] values) {
        Column c = new Column();
        c.name = name;
        c.numbers = values;
        return new JAXBElement<>(SERIES, Column.class, c);
    }

    /** The column's text, sized ahead by its widest value (growing a builder of megabytes cost a sixth of an answer). */
    static String text(long[] values) {
        long min = 0;
        long max = 0;
        for (long v : values) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        long chars = (long) values.length * (Math.max(digits(min), digits(max)) + 1);
        StringBuilder text = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 8, chars));
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                text.append(' ');
            }
            text.append(values[i]);
        }
        return text.toString();
    }

    /** How many characters Long.toString(v) writes. */
    static int digits(long v) {
        if (v == Long.MIN_VALUE) {
            return 20;
        }
        int n = v < 0 ? 2 : 1;
        long a = Math.abs(v);
        for (long p = 10; p <= a && n < 20; p *= 10) {
            n++;
            if (p > Long.MAX_VALUE / 10) {
                break;
            }
        }
        return n;
    }

    /**
     * The nmws:series type (the schema's LongList with a name). JAXB writes {@code values}; the
     * listener below fills it just before the column is written and drops it after, so a column
     * holds its text only while it is being written.
     */
    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(name = "")
    static final class Column {
        @XmlAttribute(name = "name", required = true)
        String name;
        @XmlValue
        String values;
        @jakarta.xml.bind.annotation.XmlTransient
        long[] numbers;
    }

    /** Makes each column's text as JAXB reaches it (for writers to a stream or a DOM), and drops it after. */
    static final class Texts extends jakarta.xml.bind.Marshaller.Listener {
        @Override
        public void beforeMarshal(Object source) {
            if (source instanceof Column c) {
                c.values = text(c.numbers);
            }
        }

        @Override
        public void afterMarshal(Object source) {
            if (source instanceof Column c) {
                c.values = null;
            }
        }
    }

    /**
     * For writing as SAX events (the SOAP answer): a column's element gets a one-character
     * stand-in for its text, and the content handler between JAXB and the consumer writes the
     * numbers in its place, in chunks from a small buffer. Written by hand because JAXB takes
     * text only as a String and hands it on as one char array.
     */
    static final class Streaming extends jakarta.xml.bind.Marshaller.Listener {
        private Column pending;
        private final char[] buffer = new char[8192];

        @Override
        public void beforeMarshal(Object source) {
            if (source instanceof Column c && c.numbers != null) { // one read from another point keeps its text
                c.values = " ";
                pending = c;
            }
        }

        @Override
        public void afterMarshal(Object source) {
            if (source instanceof Column c && c.numbers != null) {
                c.values = null;
            }
        }

        /** The consumer as JAXB should see it: the stand-in text of a column becomes its numbers. */
        org.xml.sax.ContentHandler around(org.xml.sax.ContentHandler consumer) {
            return new org.xml.sax.helpers.XMLFilterImpl() {
                {
                    setContentHandler(consumer);
                }

                @Override
                public void characters(char[] ch, int start, int length) throws org.xml.sax.SAXException {
                    if (pending != null) {
                        Column c = pending;
                        pending = null;
                        write(c.numbers, consumer);
                    } else {
                        consumer.characters(ch, start, length);
                    }
                }

                @Override
                public void endElement(String uri, String localName, String qName) throws org.xml.sax.SAXException {
                    if (pending != null) { // the stand-in was not passed on as text: the numbers go here
                        Column c = pending;
                        pending = null;
                        write(c.numbers, consumer);
                    }
                    consumer.endElement(uri, localName, qName);
                }
            };
        }

        private void write(long[] values, org.xml.sax.ContentHandler consumer) throws org.xml.sax.SAXException {
            if (consumer instanceof Utf8SaxWriter bytes) {
                bytes.digits(values); // straight to bytes: digits need no escaping
                return;
            }
            int n = 0;
            for (int i = 0; i < values.length; i++) {
                if (n > buffer.length - 21) {
                    consumer.characters(buffer, 0, n);
                    n = 0;
                }
                if (i > 0) {
                    buffer[n++] = ' ';
                }
                n = put(values[i], buffer, n);
            }
            if (n > 0) {
                consumer.characters(buffer, 0, n);
            }
        }
    }

    /** Writes v's decimal digits at buffer[at] (at most 20 characters); returns the next free index. */
    static int put(long v, char[] buffer, int at) {
        if (v == Long.MIN_VALUE) {
            String s = Long.toString(v);
            s.getChars(0, s.length(), buffer, at);
            return at + s.length();
        }
        int n = at;
        if (v < 0) {
            buffer[n++] = '-';
            v = -v;
        }
        if (v < 10) { // most ttls, byte counts' last digits, lost frames' -1: no reversal
            buffer[n] = (char) ('0' + v);
            return n + 1;
        }
        // the digits backwards, then turned round in place: no pass to count them first
        int from = n;
        while (v != 0) {
            buffer[n++] = (char) ('0' + (int) (v % 10));
            v /= 10;
        }
        for (int i = from, j = n - 1; i < j; i++, j--) {
            char c = buffer[i];
            buffer[i] = buffer[j];
            buffer[j] = c;
        }
        return n;
    }
}
