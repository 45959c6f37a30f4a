package org.nmws.probe;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A slot asked of a responder's calendar (the engine's "reserve" kind, RESERVE on its control
 * connection): the earliest start in [{@code start}, {@code latest}] that meets no reservation it
 * cannot share the responder with. The responder names {@code holder} to others whose runs this
 * reservation is in the way of.
 *
 * @param host the responder
 * @param port its control port
 * @param start the earliest start wanted
 * @param latest the latest start accepted (not before start)
 * @param duration how long the run holds the responder (1 ms..1 h)
 * @param testClass "exclusive", "normal" or "background"
 * @param holder a label of at most 63 characters (others see it; characters outside the
 *     control protocol's set become '_')
 * @param local a hold on this host's own responder (reached on a loopback address) for a test
 *     this host runs itself: no session redeems it, and it keeps every other session out
 */
public record SlotRequest(String host, int port, Instant start, Instant latest, Duration duration,
    String testClass, String holder, boolean local) {

  /** A slot for a test towards that responder. */
  public SlotRequest(String host, int port, Instant start, Instant latest, Duration duration,
      String testClass, String holder) {
    this(host, port, start, latest, duration, testClass, holder, false);
  }

  public SlotRequest {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(latest, "latest");
    Objects.requireNonNull(duration, "duration");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("slot: port " + port + " is outside 1..65535");
    }
    if (latest.isBefore(start)) {
      throw new IllegalArgumentException("slot: latest " + latest + " is before start " + start);
    }
    if (duration.toMillis() < 1 || duration.toMillis() > 3_600_000) {
      throw new IllegalArgumentException("slot: duration " + duration + " is outside 1 ms..1 h");
    }
    if (!testClass.equals("exclusive") && !testClass.equals("normal") && !testClass.equals("background")) {
      throw new IllegalArgumentException("slot: class '" + testClass + "' is not exclusive, normal or background");
    }
    holder = holder.replaceAll("[^A-Za-z0-9._:%/+=,()*-]", "_");
    if (holder.isEmpty() || holder.length() > 63) {
      holder = holder.isEmpty() ? "-" : holder.substring(0, 63);
    }
  }
}
