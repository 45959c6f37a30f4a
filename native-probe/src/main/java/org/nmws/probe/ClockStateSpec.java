package org.nmws.probe;

/**
 * The "clock" kind: reads this host's clock state.
 *
 * @param ptpSocket ptp4l's management socket (its uds_address), or null for the engine's default
 *     ($NMP_PTP_SOCKET, else /var/run/ptp4l); it becomes the process's for every later test
 */
record ClockStateSpec(String ptpSocket) implements ProbeSpec<ClockState> {

  @Override
  public String kind() {
    return "clock";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    if (ptpSocket != null && !ptpSocket.isEmpty()) {
      out.str("ptpSocket", ptpSocket);
    }
  }

  @Override
  public ClockState read(NativeRecord r) {
    return ClockState.fromNative(r);
  }
}
