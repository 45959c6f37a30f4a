package org.nmws.probe;

/** The "reserve" kind: a RESERVE, or (release != 0) a RELEASE of that reservation. */
record SlotSpec(SlotRequest request, String host, int port, long release) implements ProbeSpec<SlotAnswer> {

  @Override
  public boolean keyedByResponder() {
    return true;
  }

  @Override
  public String kind() {
    return "reserve";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port);
    if (release != 0) {
      out.i64("release", release);
      return;
    }
    out.i64("startMs", request.start().toEpochMilli()).i64("latestMs", request.latest().toEpochMilli())
        .i64("durationMs", request.duration().toMillis()).str("testClass", request.testClass())
        .str("holder", request.holder());
    if (request.local()) {
      out.bool("local", true);
    }
  }

  @Override
  public SlotAnswer read(NativeRecord r) {
    return SlotAnswer.fromNative(r);
  }
}
