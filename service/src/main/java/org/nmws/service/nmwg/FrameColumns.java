package org.nmws.service.nmwg;

import java.util.AbstractList;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import org.nmws.schema.figure.Series;
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
        out.add(new Column("frame.seqNum", seq));
        out.add(new Column("frame.sendOffsetNs", offset));
        out.add(new Column("frame.valueNs", value));
        out.add(new Column("frame.numBytes", bytes));
        out.add(new Column("frame.ttl", ttl));
        for (Map.Entry<String, long[]> s : o.samples().entrySet()) {
            out.add(new Column("sample." + s.getKey(), s.getValue()));
        }
    }

    /**
     * An nmws:series over a long[] as it is: the generated class keeps a List of boxed Longs, and
     * copying 100,000 frames into five of them cost more than writing them (JAXB marshals a
     * subclass of a bound class as that class).
     */
    private static final class Column extends Series {
        Column(String name, long[] values) {
            setName(name);
            this.value = new Longs(values);
        }
    }

    /** A read-only list view of a long[]. */
    private static final class Longs extends AbstractList<Long> implements RandomAccess {
        private final long[] values;

        Longs(long[] values) {
            this.values = values;
        }

        @Override
        public Long get(int i) {
            return values[i];
        }

        @Override
        public int size() {
            return values.length;
        }
    }
}
