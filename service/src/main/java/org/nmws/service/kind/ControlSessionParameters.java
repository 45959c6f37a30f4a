package org.nmws.service.kind;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.nmws.probe.OwampSpec;
import org.nmws.service.observation.Params;

/**
 * The NMWG parameters of an OWAMP or TWAMP session (protocol=OWAMP / protocol=TWAMP): count,
 * packetPadding (octets), interval and timeout (seconds), port (the server's control port),
 * mode (open, authenticated, encrypted; TWAMP also mixed), keyId, ttl, raw, and for OWAMP
 * direction (to: this host sends, the default; from: the server sends to this host, as owping
 * -f measures). The key itself
 * is never a parameter: the point reads it from its own key file (nmws.key-file, owampd's
 * pfs format), so a client names a key id the point was given, not a secret.
 */
record ControlSessionParameters(boolean twamp, int count, int padding, double intervalSeconds,
                                double timeoutSeconds, int port, String mode, String keyId, int ttl, boolean raw,
                                boolean fromServer) {

    static final Set<String> READS = Set.of("count", "packetPadding", "interval", "timeout", "port", "mode", "keyId",
            "ttl", "protocol");
    static final Set<String> OWAMP_READS = Set.of("count", "packetPadding", "interval", "timeout", "port", "mode",
            "keyId", "ttl", "protocol", "direction");

    static ControlSessionParameters parse(Map<String, String> p, boolean twamp, Path keyFile, int maxCount,
                                          Duration maxDuration) {
        String test = twamp ? "TWAMP" : "OWAMP";
        ParameterNames.check(p, test, twamp ? READS : OWAMP_READS);
        String direction = p.getOrDefault("direction", "to").trim().toLowerCase(Locale.ROOT);
        if (!direction.equals("to") && !direction.equals("from")) {
            throw new IllegalArgumentException("parameter 'direction' is '" + Params.echo(direction)
                    + "': expected to (this host sends) or from (the server sends to this host)");
        }
        int count = Params.integer(p, "count", 10, 1, Math.min(maxCount, OwampSpec.MAX_COUNT));
        int padding = Params.integer(p, "packetPadding", 0, 0, OwampSpec.MAX_PADDING);
        double interval = Params.decimal(p, "interval", 0.1, 0.0, 60.0);
        double timeout = Params.decimal(p, "timeout", 2.0, 0.001, 60.0);
        int port = Params.integer(p, "port", twamp ? OwampSpec.TWAMP_PORT : OwampSpec.OWAMP_PORT, 1, 65535);
        String mode = p.getOrDefault("mode", "open").trim().toLowerCase(Locale.ROOT);
        if (!OwampSpec.MODES.contains(mode) || (!twamp && mode.equals("mixed"))) {
            throw new IllegalArgumentException("parameter 'mode' is '" + Params.echo(mode) + "': expected open, "
                    + "authenticated" + (twamp ? ", encrypted or mixed" : " or encrypted"));
        }
        String keyId = p.get("keyId");
        if (!mode.equals("open")) {
            if (keyId == null || keyId.isBlank()) {
                throw new IllegalArgumentException("mode " + mode + " needs the parameter 'keyId' (a key id in this "
                        + "point's key file)");
            }
            if (keyFile == null) {
                throw new IllegalArgumentException("mode " + mode + " needs a key file on this point (nmws.key-file), "
                        + "and none is configured");
            }
        } else if (keyId != null) {
            throw new IllegalArgumentException("parameter 'keyId' is for the authenticated, encrypted and mixed modes;"
                    + " mode is open");
        }
        if (keyId != null && (keyId.length() > 80 || !keyId.matches("[\\x21-\\x7e]+"))) {
            throw new IllegalArgumentException("parameter 'keyId' must be 1..80 printable ASCII characters");
        }
        int ttl = Params.integer(p, "ttl", 0, 0, 255);
        Params.withinDuration(count * interval + timeout, maxDuration, "count %d x interval %.3f s + timeout %.3f s",
                count, interval, timeout);
        return new ControlSessionParameters(twamp, count, padding, interval, timeout, port, mode, keyId, ttl,
                Params.bool(p, "raw"), direction.equals("from"));
    }

    OwampSpec spec(String host, Path keyFile) {
        OwampSpec s = new OwampSpec(twamp, host, port, count, padding, Math.round(intervalSeconds * 1e9),
                Math.round(timeoutSeconds * 1e9), mode, keyId, keyId == null ? null : keyFile.toString(), ttl);
        return fromServer ? s.fromServer() : s;
    }

    Map<String, String> asNmwg() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("count", Integer.toString(count));
        m.put("packetPadding", Integer.toString(padding));
        m.put("interval", Params.plain(intervalSeconds));
        m.put("timeout", Params.plain(timeoutSeconds));
        m.put("port", Integer.toString(port));
        m.put("mode", mode);
        if (keyId != null) {
            m.put("keyId", keyId);
        }
        m.put("ttl", Integer.toString(ttl));
        if (fromServer) {
            m.put("direction", "from");
        }
        m.put("protocol", twamp ? "TWAMP" : "OWAMP");
        return m;
    }
}
