package org.nmws.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression tests for the review finding "JVM crash on cancel before SESSION is answered": a
 * test cancelled while its responder had not yet answered SESSION used to free the per-frame
 * arrays and then copy them to Java from NULL (SIGSEGV in the JVM). The "responder" here is a
 * plain TCP server on 127.0.0.1 that accepts and never replies, so every test is still waiting
 * for its SESSION answer when it is cancelled. Each test must return a result with {@code
 * cancelled() == true} and nothing sent; the JVM must survive.
 */
class ProbeCancelBeforeSessionTest {

  private ServerSocket silent;
  private Thread acceptor;
  private final List<Socket> accepted = new ArrayList<>();
  private volatile CountDownLatch connected = new CountDownLatch(1);

  @BeforeEach
  void startSilentServer() throws IOException {
    silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptForever, "silent-responder");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void acceptForever() {
    try {
      while (true) {
        Socket s = silent.accept(); // accept, read nothing, answer nothing
        synchronized (accepted) {
          accepted.add(s);
        }
        connected.countDown();
      }
    } catch (IOException closed) {
      // the test is over
    }
  }

  @AfterEach
  void stopSilentServer() throws Exception {
    silent.close();
    acceptor.join(5000);
    synchronized (accepted) {
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  private int port() {
    return silent.getLocalPort();
  }

  /** Cancels from another thread as soon as the silent server has accepted the connection. */
  private <R> R cancelledWhileConnecting(Function<ProbeControl, R> test) throws Exception {
    connected = new CountDownLatch(1);
    ProbeControl control = new ProbeControl();
    Thread canceller =
        new Thread(
            () -> {
              try {
                if (connected.await(30, TimeUnit.SECONDS)) {
                  control.cancel();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "canceller");
    canceller.start();
    try {
      return test.apply(control);
    } finally {
      canceller.join(30_000);
    }
  }

  private static ProbeControl cancelledControl() {
    ProbeControl c = new ProbeControl();
    c.cancel();
    return c;
  }

  private static void assertNoFrameSent(RoundTripResult r, int count) {
    assertTrue(r.cancelled(), r.toString());
    assertEquals(count, r.requested());
    assertEquals(0, r.sent());
    assertEquals(0, r.received());
    assertEquals(0, r.lost());
    assertTrue(Double.isNaN(r.minRttMs()), r.toString());
    assertEquals(count, r.seq().length);
    for (int i = 0; i < count; i++) {
      assertEquals(i, r.seq()[i]);
    }
    long[] minusOne = new long[count];
    Arrays.fill(minusOne, -1L);
    assertArrayEquals(minusOne, r.rttNanos());
    assertArrayEquals(new long[count], r.sendEpochNanos());
  }

  private static void assertNoStreamFrameSent(UdpStreamResult r, int count) {
    assertTrue(r.cancelled());
    assertEquals(count, r.requested());
    assertEquals(0, r.sent());
    assertEquals(0, r.received());
    assertEquals(count, r.seq().length);
    for (int i = 0; i < count; i++) {
      assertEquals(i, r.seq()[i]);
    }
    long[] minusOne = new long[count];
    Arrays.fill(minusOne, -1L);
    assertArrayEquals(minusOne, r.owdNanos());
    assertArrayEquals(new long[count], r.arrivalEpochNanos());
  }

  @Test
  void aRoundTripCancelledBeforeItStartsReturnsACancelledResultWithNothingSent() {
    RoundTripSpec spec = RoundTripSpec.defaults("127.0.0.1").withPort(port()).withCount(50);
    assertNoFrameSent(Probe.roundTrip(spec, cancelledControl()), 50);
  }

  @Test
  void aRoundTripCancelledWhileWaitingForSessionReturnsACancelledResult() throws Exception {
    RoundTripSpec spec = RoundTripSpec.defaults("127.0.0.1").withPort(port()).withCount(50);
    assertNoFrameSent(cancelledWhileConnecting(c -> Probe.roundTrip(spec, c)), 50);
  }

  @Test
  void aUdpStreamCancelledBeforeItStartsReturnsACancelledResultWithNothingSent() {
    UdpStreamSpec spec = UdpStreamSpec.defaults("127.0.0.1").withPort(port()).withCount(40);
    assertNoStreamFrameSent(Probe.udpStream(spec, cancelledControl()), 40);
  }

  @Test
  void aUdpStreamCancelledWhileWaitingForSessionReturnsACancelledResult() throws Exception {
    UdpStreamSpec spec = UdpStreamSpec.defaults("127.0.0.1").withPort(port()).withCount(40);
    assertNoStreamFrameSent(cancelledWhileConnecting(c -> Probe.udpStream(spec, c)), 40);
  }

  @Test
  void aLatencyScanCancelledWhileWaitingForSessionReturnsACancelledResult() throws Exception {
    LatencyScanSpec spec =
        LatencyScanSpec.defaults("127.0.0.1").withPort(port()).withSizes(64, 512);
    LatencyScanResult r = cancelledWhileConnecting(c -> Probe.latencyScan(spec, c));
    assertTrue(r.cancelled());
    for (LatencyScanResult.SizePoint p : r.points()) {
      assertEquals(0, p.sent());
      assertEquals(0, p.received());
    }
  }

  @Test
  void aTcpStreamCancelledWhileWaitingForSessionReturnsACancelledResult() throws Exception {
    TcpStreamSpec spec = TcpStreamSpec.defaults("127.0.0.1").withPort(port());
    TcpStreamResult r = cancelledWhileConnecting(c -> Probe.tcpStream(spec, c));
    assertTrue(r.cancelled());
    assertEquals(0L, r.bytesSent());
    assertEquals(0L, r.bytesReceived());
  }

  @Test
  void aCapacityTestCancelledWhileWaitingForSessionReturnsACancelledResult() throws Exception {
    CapacitySpec pilot = CapacitySpec.defaults("127.0.0.1").withPort(port()).withTrains(5, 20);
    CapacityResult r = cancelledWhileConnecting(c -> Probe.capacity(pilot, c));
    assertTrue(r.cancelled());
    assertEquals(0, r.trains().trainsSent());
    // with a fixed gap there is no pilot: the trains' own session is the one cancelled
    CapacitySpec fixed = pilot.withGapNanos(1_000_000L);
    r = cancelledWhileConnecting(c -> Probe.capacity(fixed, c));
    assertTrue(r.cancelled());
    assertEquals(0, r.trains().trainsSent());
    for (CapacityResult.TrainStatus s : r.trainStatus()) {
      assertEquals(CapacityResult.TrainStatus.NOT_SENT, s);
    }
  }

  @Test
  void anAvailableBandwidthScanCancelledWhileWaitingForSessionKeepsNoEmptyStep()
      throws Exception {
    AvailableBandwidthSpec spec =
        AvailableBandwidthSpec.defaults("127.0.0.1", 10).withPort(port());
    AvailableBandwidthResult r = cancelledWhileConnecting(c -> Probe.availableBandwidth(spec, c));
    assertTrue(r.cancelled());
    assertEquals(List.of(), r.steps());
    assertTrue(Double.isNaN(r.estimateMbps()));
  }

  @Test
  void everyTestCancelledBeforeItStartsReturnsACancelledResult() {
    String h = "127.0.0.1";
    assertTrue(Probe.latencyScan(
        LatencyScanSpec.defaults(h).withPort(port()).withSizes(64, 512), cancelledControl())
        .cancelled());
    assertTrue(Probe.tcpStream(TcpStreamSpec.defaults(h).withPort(port()), cancelledControl())
        .cancelled());
    assertTrue(Probe.capacity(CapacitySpec.defaults(h).withPort(port()), cancelledControl())
        .cancelled());
    assertTrue(Probe.availableBandwidth(
        AvailableBandwidthSpec.defaults(h, 10).withPort(port()), cancelledControl())
        .cancelled());
    assertTrue(Probe.hopList(HopListSpec.defaults(h).withMaxTtl(2), cancelledControl())
        .cancelled());
  }
}
