package org.nmws.probe;

/** The "clock" kind: no parameters; reads this host's clock state. */
record ClockStateSpec() implements ProbeSpec<ClockState> {

  @Override
  public String kind() {
    return "clock";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {}

  @Override
  public ClockState read(NativeRecord r) {
    return ClockState.fromNative(r);
  }
}
