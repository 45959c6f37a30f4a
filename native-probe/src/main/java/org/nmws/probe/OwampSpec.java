package org.nmws.probe;

import java.util.Locale;
import java.util.Set;

/**
 * Parameters of an OWAMP (RFC 4656) or TWAMP (RFC 5357) session to a standard server (owampd,
 * twampd, a router): a control connection on TCP, one test session, and for OWAMP the
 * receiver's records fetched back. Validated on construction: every out-of-range value throws
 * {@link IllegalArgumentException} naming the field and its range.
 *
 * @param twamp TWAMP (round trip, reflected) rather than OWAMP (one way, fetched)
 * @param host server host name or IPv4/IPv6 literal
 * @param port server control port, 1..65535 (861 OWAMP, 862 TWAMP)
 * @param count test packets, 1..{@value #MAX_COUNT}
 * @param paddingBytes padding octets in each test packet, 0..{@value #MAX_PADDING}
 * @param intervalNanos spacing between packets (one fixed schedule slot), 0..60 s
 * @param timeoutNanos loss timeout after a packet's send, 1 ms..60 s
 * @param mode open, authenticated, encrypted (TWAMP also mixed)
 * @param keyId the key id (owamp's user name) for the authenticated modes, at most 80 bytes, or null
 * @param keyFile the owampd pfs file holding keyId's key, or null; the key never travels in a spec
 * @param ttl outgoing TTL / hop limit, 0 (255, as owping sends)..255
 * @param direction OWAMP only: "to" (this host sends, the server receives and its records are
 *     fetched) or "from" (the server sends, as owping -f asks, and this host receives and keeps
 *     the records); null means "to". In "from" the sender is the far end: the result's
 *     senderErrorMs is the server's clock error and remoteErrorMs / remoteSynchronised are the
 *     receiver's, this host's
 */
public record OwampSpec(boolean twamp, String host, int port, int count, int paddingBytes,
    long intervalNanos, long timeoutNanos, String mode, String keyId, String keyFile, int ttl,
    String direction)
    implements ProbeSpec<OwampResult> {

  public static final int OWAMP_PORT = 861;
  public static final int TWAMP_PORT = 862;
  public static final int MAX_COUNT = 1_000_000;
  public static final int MAX_PADDING = 8800;
  public static final long MAX_NANOS = 60_000_000_000L;
  public static final Set<String> MODES = Set.of("open", "authenticated", "encrypted", "mixed");

  public OwampSpec {
    if (host == null || host.isBlank() || host.length() > 255 || !host.strip().equals(host)) {
      throw new IllegalArgumentException(
          "host must be a non-blank name or address of at most 255 characters without spaces, was "
              + (host == null ? "null" : "'" + host + "'"));
    }
    RoundTripSpec.range("port", port, 1, 65535);
    RoundTripSpec.range("count", count, 1, MAX_COUNT);
    RoundTripSpec.range("paddingBytes", paddingBytes, 0, MAX_PADDING);
    RoundTripSpec.range("intervalNanos", intervalNanos, 0, MAX_NANOS);
    RoundTripSpec.range("timeoutNanos", timeoutNanos, 1_000_000L, MAX_NANOS);
    RoundTripSpec.range("ttl", ttl, 0, 255);
    mode = mode == null ? "open" : mode.toLowerCase(Locale.ROOT);
    if (!MODES.contains(mode) || (!twamp && mode.equals("mixed"))) {
      throw new IllegalArgumentException("mode must be open, authenticated or encrypted"
          + (twamp ? " or mixed" : "") + ", was '" + mode + "'");
    }
    if (!mode.equals("open") && (keyId == null || keyFile == null)) {
      throw new IllegalArgumentException("mode " + mode + " needs a keyId and a keyFile");
    }
    direction = direction == null ? "to" : direction.toLowerCase(Locale.ROOT);
    if (!direction.equals("to") && !(direction.equals("from") && !twamp)) {
      throw new IllegalArgumentException("direction must be to" + (twamp ? " (TWAMP measures both ways at once)"
          : " or from") + ", was '" + direction + "'");
    }
    if (keyId != null && (keyId.isEmpty() || keyId.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 80)) {
      throw new IllegalArgumentException("keyId must be 1..80 bytes");
    }
  }

  /** A session in the default direction: this host sends. */
  public OwampSpec(boolean twamp, String host, int port, int count, int paddingBytes,
      long intervalNanos, long timeoutNanos, String mode, String keyId, String keyFile, int ttl) {
    this(twamp, host, port, count, paddingBytes, intervalNanos, timeoutNanos, mode, keyId, keyFile,
        ttl, "to");
  }

  /** The same session with the server sending (direction "from"); OWAMP only. */
  public OwampSpec fromServer() {
    return new OwampSpec(twamp, host, port, count, paddingBytes, intervalNanos, timeoutNanos, mode,
        keyId, keyFile, ttl, "from");
  }

  /** An open OWAMP session of 10 packets 10 ms apart on port 861, 2 s loss timeout. */
  public static OwampSpec owamp(String host) {
    return new OwampSpec(false, host, OWAMP_PORT, 10, 0, 10_000_000L, 2_000_000_000L, "open", null,
        null, 0);
  }

  /** An open TWAMP session of 10 packets 10 ms apart on port 862, 2 s loss timeout. */
  public static OwampSpec twamp(String host) {
    return new OwampSpec(true, host, TWAMP_PORT, 10, 0, 10_000_000L, 2_000_000_000L, "open", null,
        null, 0);
  }

  @Override
  public String kind() {
    return twamp ? "twamp" : "owamp";
  }

  @Override
  public void writeTo(NativeSpecWriter out) {
    out.str("host", host).i64("port", port).i64("count", count).i64("size", paddingBytes)
        .i64("intervalNs", intervalNanos).i64("timeoutNs", timeoutNanos).str("mode", mode)
        .i64("ttl", ttl);
    if (!twamp) {
      out.str("direction", direction);
    }
    if (keyId != null) {
      out.str("keyId", keyId);
    }
    if (keyFile != null) {
      out.str("keyFile", keyFile);
    }
  }

  @Override
  public OwampResult read(NativeRecord result) {
    return OwampResult.fromNative(result, twamp);
  }
}
