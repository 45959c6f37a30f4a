package org.nmws.service.archive;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.PathSubject;

/**
 * The maKey of a stored series. It carries the series' identity (test, subject and exact
 * parameters) rather than a row id, so a key stays valid however many observations the
 * series gains and needs no key table. A key is only a query filter: a forged one can do
 * no more than a SetupDataRequest with a subject could. Keys of single observations
 * (their archive id, all digits) are told apart by the prefix.
 */
public final class SeriesKeys {
    static final String PREFIX = "s1.";
    /** A decoded key larger than this is refused unread. */
    private static final int MAX_KEY_CHARS = 4096;
    private static final int MAX_PARAMETERS = 64;

    private SeriesKeys() {
    }

    /** The identity a series key names. */
    public record Key(Characteristic.ProbeTest test, PathSubject subject, Map<String, String> parameters) {
    }

    public static boolean isSeriesKey(String maKey) {
        return maKey.startsWith(PREFIX);
    }

    public static String encode(Series s) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(s.test().key());
            out.writeUTF(s.subject().src() == null ? "" : s.subject().src().host());
            out.writeUTF(s.subject().src() == null ? "" : s.subject().src().type());
            out.writeUTF(s.subject().dst().host());
            out.writeUTF(s.subject().dst().type());
            out.writeShort(s.parameters().size());
            for (Map.Entry<String, String> e : s.parameters().entrySet()) {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in-memory stream: cannot happen
        }
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
    }

    /**
     * Strict decode: anything but a key this service issued is refused.
     *
     * @throws IllegalArgumentException naming the key, for the dialect to answer as its query error
     */
    public static Key decode(String maKey) {
        if (!isSeriesKey(maKey) || maKey.length() > MAX_KEY_CHARS) {
            throw notOurs(maKey);
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(
                Base64.getUrlDecoder().decode(maKey.substring(PREFIX.length()))))) {
            Characteristic.ProbeTest test = Characteristic.ProbeTest.ofKey(in.readUTF());
            String srcHost = in.readUTF();
            String srcType = in.readUTF();
            Endpoint dst = new Endpoint(in.readUTF(), in.readUTF());
            int n = in.readUnsignedShort();
            if (n > MAX_PARAMETERS) {
                throw notOurs(maKey);
            }
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                params.put(in.readUTF(), in.readUTF());
            }
            if (in.read() != -1) {
                throw notOurs(maKey);
            }
            return new Key(test, new PathSubject(srcHost.isEmpty() ? null : new Endpoint(srcHost, srcType), dst), params);
        } catch (IOException | IllegalArgumentException e) {
            throw notOurs(maKey); // a decoding failure, or a test key this build does not know
        }
    }

    private static IllegalArgumentException notOurs(String maKey) {
        String shown = maKey.length() > 64 ? maKey.substring(0, 64) + "..." : maKey;
        return new IllegalArgumentException("maKey '" + shown + "' is not a key this archive issued;"
                + " send a MetadataKeyRequest for current keys");
    }

    /** The maKey of a series of observations (same test, path and parameters), oldest first. */
    public static String of(java.util.List<org.nmws.service.observation.Observation> group) {
        org.nmws.service.observation.Observation latest = group.get(group.size() - 1);
        return encode(new Series(latest.measurementPoint(), latest.test(), latest.subject(),
                latest.parameters(), group.size(), group.get(0).start(), latest.start()));
    }
}
