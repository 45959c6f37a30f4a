package org.nmws.probe;

import java.util.Objects;

/**
 * The state of this host's system clock, for the observation environment of a measurement. Read
 * with adjtimex(2) in read-only mode (modes = 0).
 *
 * @param source the kernel clock source (current_clocksource), e.g. "tsc"; empty when unreadable
 * @param synchronised whether NTP keeps the clock disciplined: adjtimex did not return TIME_ERROR
 *     and STA_UNSYNC is clear
 * @param maxErrorUs the kernel's maximum error, microseconds (timex.maxerror)
 * @param estErrorUs the kernel's estimated error, microseconds (timex.esterror)
 * @param status the timex status bits (STA_*)
 * @param state "ok", "unsynchronised", "leap-insert", "leap-delete", "leap-in-progress" or
 *     "leap-occurred"
 */
public record ClockState(
    String source,
    boolean synchronised,
    long maxErrorUs,
    long estErrorUs,
    int status,
    String state) {

  /** STA_UNSYNC of timex.status: the clock is not synchronised. */
  public static final int STA_UNSYNC = 0x0040;

  public ClockState {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(state, "state");
  }

  /** Reads the engine's packed "clock" result. */
  static ClockState fromNative(NativeRecord r) {
    return new ClockState(r.str("source"), r.bool("synchronised"), r.i64("maxErrorUs"),
        r.i64("estErrorUs"), r.i32("status"), r.str("state"));
  }
}
