package org.nmws.probe;

/**
 * A native test failed. The message names the call and the reason, e.g. {@code "responder
 * 10.0.0.2:8700 busy: test 3f2a1b0c (rr from 10.0.0.9) running since 12:01:07Z, retry after 2000
 * ms"} or {@code "connect 10.0.0.2:8700: Connection refused"}; {@link #reason()} classifies it.
 */
public final class ProbeException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What kind of failure this is, for callers that map failures to answers. */
  public enum Reason {
    /** The responder runs another session (interlock); retry later. */
    BUSY,
    /** The responder refused the parameters (its limits). */
    REFUSED,
    /** The host name could not be resolved. */
    RESOLVE,
    /** The responder could not be reached (connection refused, unreachable, ...). */
    CONNECT,
    /** The responder did not answer in time. */
    TIMEOUT,
    /** The responder answered something this engine does not understand. */
    PROTOCOL,
    /** The native library is not loaded. */
    UNAVAILABLE,
    /** Anything else (socket errors, out of memory). */
    INTERNAL
  }

  private final Reason reason;
  private final int errno;

  ProbeException(Reason reason, int errno, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.errno = errno;
  }

  public Reason reason() {
    return reason;
  }

  /** The positive errno value the native engine returned, or 0. */
  public int errno() {
    return errno;
  }
}
