package org.nmws.service.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nmws.service.observation.Observation.Frame;

class FrameCodecTest {

    @Test
    void extremeValuesSurviveEncoding() {
        List<Frame> frames = List.of(
                new Frame(Long.MAX_VALUE, Long.MIN_VALUE, -1, Long.MAX_VALUE, Integer.MIN_VALUE),
                new Frame(Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE),
                // An interface's bytes over a 300 s interval at 10 Gbit/s: far beyond an int.
                new Frame(1, 2, 300_000_000_000L, 375_000_000_000L, 0),
                new Frame(0, 0, 0, 0, 0));
        byte[] chunk = FrameCodec.encode(frames, 0, frames.size());
        List<Frame> out = new ArrayList<>();
        FrameCodec.decode(chunk, frames.size(), out);
        assertEquals(frames, out);
    }

    @Test
    void aNegativeOneWayDelayIsAValueAndOnlyTheLostMarkerIsLeftOut() {
        // Receiver clock 3 ms behind the sender's: delays are negative, and still delays.
        List<Frame> frames = List.of(new Frame(0, 1_000, -2_900_000, 100, -1), new Frame(1, 2_000, Frame.LOST, 100, -1),
                new Frame(2, 3_000, -3_100_000, 100, -1));
        long[] sends = new long[3];
        long[] values = new long[3];
        int n = FrameCodec.decodeSendsAndValues(FrameCodec.encode(frames, 0, 3), 3, sends, values);
        assertEquals(2, n);
        assertEquals(-2_900_000, values[0]);
        assertEquals(3_000, sends[1]);
        assertEquals(-3_100_000, values[1]);
    }

    @Test
    void aTypicalRoundTripTestTakesAboutNineBytesAFrame() {
        List<Frame> frames = new ArrayList<>();
        Random r = new Random(1);
        for (int i = 0; i < FrameCodec.CHUNK_FRAMES; i++) {
            frames.add(new Frame(i, 1_770_000_000_000_000_000L + i * 1_000_000L + r.nextInt(2000),
                    100_000 + r.nextInt(50_000), 64, 64));
        }
        byte[] chunk = FrameCodec.encode(frames, 0, frames.size());
        assertTrue(chunk.length < 10 * frames.size(), "chunk of " + frames.size() + " frames took " + chunk.length + " bytes");
        long[] sends = new long[frames.size()];
        long[] values = new long[frames.size()];
        assertEquals(frames.size(), FrameCodec.decodeSendsAndValues(chunk, frames.size(), sends, values));
        assertEquals(frames.get(77).sendEpochNanos(), sends[77]);
        assertEquals(frames.get(77).valueNanos(), values[77]);
    }

    @Test
    void aTruncatedOrForeignChunkIsRefusedWithAReason() {
        List<Frame> frames = List.of(new Frame(1, 2, 3, 4, 5), new Frame(2, 3, 4, 5, 6));
        byte[] chunk = FrameCodec.encode(frames, 0, 2);
        var e = assertThrows(IllegalStateException.class,
                () -> FrameCodec.decode(Arrays.copyOf(chunk, chunk.length - 1), 2, new ArrayList<>()));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        chunk[0] = 9;
        e = assertThrows(IllegalStateException.class, () -> FrameCodec.decode(chunk, 2, new ArrayList<>()));
        assertTrue(e.getMessage().contains("unknown format 9"), e.getMessage());
    }

    @Test
    void medianByQuickselectMatchesTheSortedMiddle() {
        Random r = new Random(7);
        for (int n = 1; n < 300; n++) {
            double[] a = new double[n];
            for (int i = 0; i < n; i++) {
                a[i] = r.nextInt(20); // many ties, as RTTs at microsecond resolution have
            }
            double[] sorted = a.clone();
            Arrays.sort(sorted);
            double expected = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
            assertEquals(expected, Buckets.median(a, n), "n=" + n);
        }
    }
}
