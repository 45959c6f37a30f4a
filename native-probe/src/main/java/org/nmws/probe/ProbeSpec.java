package org.nmws.probe;

/**
 * The spec of one kind of native test, and how its result is read back: {@link Probe#run}
 * writes the spec as named fields, the engine runs the kind of that name (its table in the
 * engine's nmp_kind.c), and the packed result is read by name. Adding a kind is one C engine
 * file with its {@code nmp_kind}, one row in {@code nmp_kinds[]}, and here one spec record
 * implementing this interface with its result's {@code fromNative}.
 *
 * @param <R> the result of the test
 */
public sealed interface ProbeSpec<R>
    permits RoundTripSpec, UdpStreamSpec, LatencyScanSpec, TcpStreamSpec, HopListSpec,
        CapacitySpec, HopCapacitySpec, AvailableBandwidthSpec, ClockStateSpec, StampSpec, OwampSpec, SlotSpec {

  /** The engine's name of the kind ("rr", "stream", ...). */
  String kind();

  /** Writes every field of the spec under the engine's field names. */
  void writeTo(NativeSpecWriter out);

  /** Builds the result from the engine's packed result. */
  R read(NativeRecord result);

  /**
   * Whether the test's far end is an nmprobe-responder session that a keyed responder
   * authenticates: the responder key file ({@link Probe#useResponderKey}) is then sent as
   * the engine's keyFile field. STAMP and OWAMP keys are their own, not this one.
   */
  default boolean keyedByResponder() {
    return false;
  }
}
