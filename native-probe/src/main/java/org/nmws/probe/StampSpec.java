package org.nmws.probe;

/**
 * Parameters of a STAMP (RFC 8762) / TWAMP-Light test against a standard session-reflector:
 * no control session and no nmws responder needed. Validated on construction: every
 * out-of-range value throws {@link IllegalArgumentException} naming the field and its range.
 *
 * @param host reflector host name or IPv4/IPv6 literal
 * @param port reflector UDP port, 1..65535 ({@value #DEFAULT_PORT} is the standard one)
 * @param count test packets, 1..{@value #MAX_COUNT}
 * @param packetSize UDP payload bytes per packet, {@value #MIN_SIZE} (no padding)..{@value #MAX_SIZE}
 * @param intervalNanos spacing between packets, 0..{@value #MAX_NANOS}
 * @param timeoutNanos how long to wait for reflections after the last packet, 0..{@value #MAX_NANOS}
 * @param ssid session id sent (RFC 8972), 0..65535; 0 is what TWAMP-Light senders send
 * @param ptp PTPv2 timestamps instead of NTP
 * @param ttl outgoing IP TTL / hop limit, 1..255, or 0 for the system default
 * @param agreeNanos how long the first packet waits for its reflection (three tries) before
 *     the host is given up as running no reflector, 1 ms..10 s
 * @param keyId null for unauthenticated mode; else authenticated mode (RFC 8762 4.2.2,
 *     HMAC-SHA-256) with the key of this id (1..{@value #MAX_KEY_ID} printable characters, no
 *     spaces) in the key file the process was given ({@link Probe#useStampKeys}); packets are
 *     then {@value #MIN_AUTH_SIZE}..{@value #MAX_SIZE} bytes
 */
public record StampSpec(String host, int port, int count, int packetSize, long intervalNanos,
    long timeoutNanos, int ssid, boolean ptp, int ttl, long agreeNanos, String keyId)
    implements ProbeSpec<StampResult> {

  public static final int DEFAULT_PORT = 862;
  public static final int MAX_COUNT = 1_000_000;
  public static final int MIN_SIZE = 44;
  /** Smallest authenticated test packet (RFC 8762 4.2.2). */
  public static final int MIN_AUTH_SIZE = 112;
  /** Longest key id (OWAMP's KeyID field). */
  public static final int MAX_KEY_ID = 80;
  public static final int MAX_SIZE = 9000;
  public static final long MAX_NANOS = 60_000_000_000L;

  public StampSpec {
    if (host == null || host.isBlank() || host.length() > 255 || !host.strip().equals(host)) {
      throw new IllegalArgumentException(
          "host must be a non-blank name or address of at most 255 characters without spaces, was "
              + (host == null ? "null" : "'" + host + "'"));
    }
    RoundTripSpec.range("port", port, 1, 65535);
    RoundTripSpec.range("count", count, 1, MAX_COUNT);
    RoundTripSpec.range("packetSize", packetSize, MIN_SIZE, MAX_SIZE);
    RoundTripSpec.range("intervalNanos", intervalNanos, 0, MAX_NANOS);
    RoundTripSpec.range("timeoutNanos", timeoutNanos, 0, MAX_NANOS);
    RoundTripSpec.range("ssid", ssid, 0, 65535);
    RoundTripSpec.range("ttl", ttl, 0, 255);
    RoundTripSpec.range("agreeNanos", agreeNanos, 1_000_000L, 10_000_000_000L);
    if (keyId != null) {
      if (keyId.isEmpty() || keyId.length() > MAX_KEY_ID
          || !keyId.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
        throw new IllegalArgumentException("keyId must be 1.." + MAX_KEY_ID
            + " printable ASCII characters without spaces, was '" + keyId + "'");
      }
      RoundTripSpec.range("packetSize (authenticated)", packetSize, MIN_AUTH_SIZE, MAX_SIZE);
    }
  }

  /** Unauthenticated mode. */
  public StampSpec(String host, int port, int count, int packetSize, long intervalNanos,
      long timeoutNanos, int ssid, boolean ptp, int ttl, long agreeNanos) {
    this(host, port, count, packetSize, intervalNanos, timeoutNanos, ssid, ptp, ttl, agreeNanos,
        null);
  }

  /** Whether the test runs in authenticated mode. */
  public boolean authenticated() {
    return keyId != null;
  }

  /** Port 862, 10 packets of 44 bytes 1 ms apart, 1 s timeout, SSID 1, NTP, system TTL. */
  public static StampSpec defaults(String host) {
    return new StampSpec(host, DEFAULT_PORT, 10, MIN_SIZE, 1_000_000L, 1_000_000_000L, 1, false, 0,
        1_000_000_000L);
  }

  @Override
  public String kind() {
    return "stamp";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i64("count", count).i64("size", packetSize)
        .i64("intervalNs", intervalNanos).i64("timeoutNs", timeoutNanos).i64("ssid", ssid)
        .i64("ptp", ptp ? 1 : 0).i64("ttl", ttl).i64("agreeNs", agreeNanos);
    if (keyId != null) {
      out.i64("auth", 1).str("keyId", keyId); // the key file is added by Probe, never the key
    }
  }

  @Override
  public StampResult read(NativeRecord result) {
    return StampResult.fromNative(result);
  }
}
