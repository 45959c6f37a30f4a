package org.nmws.probe;

import java.util.Objects;

/**
 * The state of this host's system clock, for the observation environment of a measurement. Read
 * with adjtimex(2) in read-only mode (modes = 0), and from a running ptp4l's management socket.
 *
 * @param source the kernel clock source (current_clocksource), e.g. "tsc"; empty when unreadable
 * @param synchronised whether NTP keeps the clock disciplined: adjtimex did not return TIME_ERROR
 *     and STA_UNSYNC is clear
 * @param maxErrorUs the kernel's maximum error, microseconds (timex.maxerror)
 * @param estErrorUs the kernel's estimated error, microseconds (timex.esterror)
 * @param status the timex status bits (STA_*)
 * @param state "ok", "unsynchronised", "leap-insert", "leap-delete", "leap-in-progress" or
 *     "leap-occurred"
 * @param reference what one-way delays can rely on: "ptp:&lt;grandmaster&gt;" while a ptp4l
 *     measures this clock against one, "utc" while the kernel says NTP keeps it, else "none"
 * @param errorNs this clock's error bound against {@code reference}
 * @param utcErrorNs its error bound against UTC
 * @param ptp what ptp4l says, or null when none answers
 */
public record ClockState(
    String source,
    boolean synchronised,
    long maxErrorUs,
    long estErrorUs,
    int status,
    String state,
    String reference,
    long errorNs,
    long utcErrorNs,
    Ptp ptp) {

  /**
   * A running ptp4l's view of this clock (its management datasets).
   *
   * @param portState "SLAVE", "UNCALIBRATED", "MASTER", ...
   * @param grandmaster the grandmaster's clock identity
   * @param clockIdentity this clock's identity
   * @param hardwareTimestamping ptp4l disciplines the NIC's clock rather than the system clock
   * @param timeTraceable the grandmaster's time is traceable to UTC
   * @param offsetNs offsetFromMaster
   * @param pathDelayNs meanPathDelay
   */
  public record Ptp(
      String portState,
      String grandmaster,
      String clockIdentity,
      boolean hardwareTimestamping,
      boolean timeTraceable,
      long offsetNs,
      long pathDelayNs) {}

  /** STA_UNSYNC of timex.status: the clock is not synchronised. */
  public static final int STA_UNSYNC = 0x0040;

  public ClockState {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(state, "state");
  }

  /** Reads the engine's packed "clock" result. */
  static ClockState fromNative(NativeRecord r) {
    Ptp ptp = r.bool("ptpPresent")
        ? new Ptp(r.str("ptpPortState"), r.str("ptpGrandmaster"), r.str("ptpClockIdentity"),
            r.bool("ptpHardwareTimestamping"), r.bool("ptpTimeTraceable"), r.i64("ptpOffsetNs"),
            r.i64("ptpPathDelayNs"))
        : null;
    return new ClockState(r.str("source"), r.bool("synchronised"), r.i64("maxErrorUs"),
        r.i64("estErrorUs"), r.i32("status"), r.str("state"), r.str("reference"),
        r.i64("errorNs"), r.i64("utcErrorNs"), ptp);
  }
}
