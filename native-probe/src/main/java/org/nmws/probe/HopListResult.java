package org.nmws.probe;

import java.util.List;
import java.util.Optional;

/**
 * The outcome of a hop list.
 *
 * @param hops one entry per TTL from 1, up to the destination (or the largest TTL probed)
 * @param reached whether the destination answered (ICMP port unreachable from it)
 * @param hopCount the TTL at which the destination answered, 0 if it did not
 * @param destination the resolved destination address
 * @param elapsedMs duration of the whole test
 * @param cancelled whether the test was cancelled
 */
public record HopListResult(
    List<Hop> hops,
    boolean reached,
    int hopCount,
    String destination,
    double elapsedMs,
    boolean cancelled) {

  public HopListResult {
    hops = List.copyOf(hops);
  }

  /**
   * One TTL.
   *
   * @param ttl TTL of the probes
   * @param address the address that answered first; empty when no probe was answered
   * @param name its reverse name, when asked for and resolved in time
   * @param rttMs RTT per probe, NaN when unanswered
   * @param answered probes answered
   * @param otherAddresses answers from an address other than {@code address}
   * @param icmpType ICMP type of the first answer (11 time exceeded, 3 unreachable), -1 if none
   * @param icmpCode its code, -1 if none
   * @param destination whether this hop is the destination
   * @param unreachable whether a destination-unreachable other than port ended the path here
   */
  public record Hop(
      int ttl,
      Optional<String> address,
      Optional<String> name,
      double[] rttMs,
      int answered,
      int otherAddresses,
      int icmpType,
      int icmpCode,
      boolean destination,
      boolean unreachable) {}

  /** The addresses of the hops in order (empty string for a silent hop). */
  public List<String> addresses() {
    return hops.stream().map(h -> h.address().orElse("")).toList();
  }

  /** Reads the engine's packed "hops" result (probe k of hop t at t * probesPerHop + k). */
  static HopListResult fromNative(NativeRecord r) {
    int n = r.rows("hops.ttl", "hops.address", "hops.name", "hops.answered", "hops.icmpType",
        "hops.icmpCode", "hops.destination", "hops.otherAddresses", "hops.unreachable");
    int np = r.i32("probesPerHop");
    double[] rtt = r.doubles("hops.rttMs");
    if (np < 0 || rtt.length != (long) n * np) {
      throw NativeRecord.malformed("engine result hops.rttMs has " + rtt.length + " values, not "
          + n + " hops * " + np + " probes");
    }
    int[] ttl = r.ints("hops.ttl");
    String[] addr = r.strings("hops.address");
    String[] name = r.strings("hops.name");
    int[] answered = r.ints("hops.answered");
    int[] type = r.ints("hops.icmpType");
    int[] code = r.ints("hops.icmpCode");
    int[] dest = r.ints("hops.destination");
    int[] other = r.ints("hops.otherAddresses");
    int[] unreachable = r.ints("hops.unreachable");
    List<Hop> hops = new java.util.ArrayList<>(n);
    for (int t = 0; t < n; t++) {
      hops.add(new Hop(ttl[t], addr[t].isEmpty() ? Optional.empty() : Optional.of(addr[t]),
          name[t].isEmpty() ? Optional.empty() : Optional.of(name[t]),
          java.util.Arrays.copyOfRange(rtt, t * np, (t + 1) * np), answered[t], other[t], type[t],
          code[t], dest[t] != 0, unreachable[t] != 0));
    }
    return new HopListResult(hops, r.bool("reached"), r.i32("hopCount"), r.str("destination"),
        r.f64("elapsedMs"), r.bool("cancelled"));
  }
}
