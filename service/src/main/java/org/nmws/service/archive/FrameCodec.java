package org.nmws.service.archive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nmws.service.observation.Observation.Frame;

/**
 * Packs probe frames into compact chunks for the frame_chunk table. A row per frame costs
 * SQLite and PostgreSQL 40 to 60 bytes with its index entry and caps ingest at a few
 * hundred thousand rows a second; a chunk of up to {@link #CHUNK_FRAMES} frames costs about
 * 8 bytes a frame and one row write.
 *
 * <p>Format (version 1): one version byte, then per frame five zigzag varints: seq minus the
 * previous seq, send time minus the previous send time, the value itself (RTTs are small and
 * -1 for a lost frame, both short as varints), bytes minus the previous bytes, ttl minus the
 * previous ttl. The "previous" of the first frame is zero. Successive frames of one test
 * differ by one in seq, by the spacing in send time and by nothing in size and TTL, so most
 * frames take 1 + 3 + 3 + 1 + 1 bytes.
 */
public final class FrameCodec {
    /** Frames per chunk: large enough that row overhead vanishes, small enough to page through. */
    public static final int CHUNK_FRAMES = 4096;
    private static final byte VERSION = 1;

    private FrameCodec() {
    }

    /** Frames [from, to) of the list as one chunk. */
    public static byte[] encode(List<Frame> frames, int from, int to) {
        Writer w = new Writer((to - from) * 10 + 1);
        w.buf[w.len++] = VERSION;
        long seq = 0;
        long send = 0;
        long bytes = 0;
        long ttl = 0;
        for (int i = from; i < to; i++) {
            Frame f = frames.get(i);
            w.zigzag(f.seq() - seq);
            w.zigzag(f.sendEpochNanos() - send);
            w.zigzag(f.valueNanos());
            w.zigzag(f.bytes() - bytes);
            w.zigzag(f.ttl() - ttl);
            seq = f.seq();
            send = f.sendEpochNanos();
            bytes = f.bytes();
            ttl = f.ttl();
        }
        return Arrays.copyOf(w.buf, w.len);
    }

    /** Appends the {@code count} frames of a chunk to {@code out}. */
    public static void decode(byte[] chunk, int count, List<Frame> out) {
        Reader r = new Reader(chunk);
        long seq = 0;
        long send = 0;
        long bytes = 0;
        long ttl = 0;
        for (int i = 0; i < count; i++) {
            seq += r.zigzag();
            send += r.zigzag();
            long value = r.zigzag();
            bytes += r.zigzag();
            ttl += r.zigzag();
            out.add(new Frame(seq, send, value, bytes, (int) ttl));
        }
        r.expectEnd(count);
    }

    /**
     * Send times and values of a chunk's frames that were not lost, into {@code sends} and
     * {@code values} (each at least {@code count} long); returns how many. Aggregation needs
     * no other field and no Frame objects.
     */
    public static int decodeSendsAndValues(byte[] chunk, int count, long[] sends, long[] values) {
        Reader r = new Reader(chunk);
        long send = 0;
        int n = 0;
        for (int i = 0; i < count; i++) {
            r.zigzag();
            send += r.zigzag();
            long value = r.zigzag();
            r.zigzag();
            r.zigzag();
            if (value != Frame.LOST) {
                sends[n] = send;
                values[n++] = value;
            }
        }
        r.expectEnd(count);
        return n;
    }

    /** The list split into encoded chunks, in order. */
    public static List<byte[]> chunks(List<Frame> frames) {
        List<byte[]> out = new ArrayList<>((frames.size() + CHUNK_FRAMES - 1) / CHUNK_FRAMES);
        for (int from = 0; from < frames.size(); from += CHUNK_FRAMES) {
            out.add(encode(frames, from, Math.min(frames.size(), from + CHUNK_FRAMES)));
        }
        return out;
    }

    private static final class Writer {
        byte[] buf;
        int len;

        Writer(int capacity) {
            buf = new byte[capacity];
        }

        void zigzag(long v) {
            long u = (v << 1) ^ (v >> 63);
            if (len + 10 > buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2 + 10);
            }
            while ((u & ~0x7FL) != 0) {
                buf[len++] = (byte) ((u & 0x7F) | 0x80);
                u >>>= 7;
            }
            buf[len++] = (byte) u;
        }
    }

    private static final class Reader {
        final byte[] buf;
        int pos;

        Reader(byte[] buf) {
            if (buf.length == 0 || buf[0] != VERSION) {
                throw new IllegalStateException("frame chunk has unknown format "
                        + (buf.length == 0 ? "(empty)" : Integer.toString(buf[0])) + ", expected " + VERSION);
            }
            this.buf = buf;
            this.pos = 1;
        }

        long zigzag() {
            long u = 0;
            int shift = 0;
            while (true) {
                if (pos >= buf.length) {
                    throw new IllegalStateException("frame chunk truncated at byte " + pos + " of " + buf.length);
                }
                byte b = buf[pos++];
                u |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    break;
                }
                shift += 7;
                if (shift > 63) {
                    throw new IllegalStateException("frame chunk has a varint longer than 10 bytes at byte " + pos);
                }
            }
            return (u >>> 1) ^ -(u & 1);
        }

        void expectEnd(int count) {
            if (pos != buf.length) {
                throw new IllegalStateException("frame chunk holds " + (buf.length - pos)
                        + " bytes beyond its " + count + " frames");
            }
        }
    }
}
