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
     * One column as an nmws:series. Written with its text made here rather than through the
     * generated class, whose List of boxed Longs JAXB prints one String per value: that was most
     * of a packed answer's time (issue 25).
     */
    private static JAXBElement<Column> column(String name, long[] values) {
        // sized ahead, by the widest value: growing a builder of megabytes was a sixth of a
        // packed answer's time, and counting every value's digits a twentieth
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
        Column c = new Column();
        c.name = name;
        c.values = text.toString();
        return new JAXBElement<>(SERIES, Column.class, c);
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

    /** The nmws:series type (the schema's LongList with a name) as JAXB writes it from a string. */
    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(name = "")
    static final class Column {
        @XmlAttribute(name = "name", required = true)
        String name;
        @XmlValue
        String values;
    }
}
