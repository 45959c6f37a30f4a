package org.nmws.service.observation;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One end of a path as a client named it: an IPv4 or IPv6 literal or a host name.
 *
 * @param host the address or name, as given
 * @param type ipv4, ipv6 or hostname
 */
public record Endpoint(String host, String type) {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})(\\.\\d{1,3}){3}");
    private static final Pattern HOSTNAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\\.?");

    public Endpoint {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("endpoint has no address");
        }
    }

    /**
     * Strict parse of a client-supplied end point: the declared type is checked against
     * what the text is, so "ipv4" with a name, or shell metacharacters, are refused.
     */
    public static Endpoint parse(String text, String declaredType) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("endpoint has no address");
        }
        String h = text.trim();
        if (h.length() > 253) {
            throw new IllegalArgumentException("endpoint '" + h.substring(0, 32) + "...' is longer than 253 characters");
        }
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        String actual;
        if (IPV4.matcher(h).matches()) {
            for (String octet : h.split("\\.")) {
                if (Integer.parseInt(octet) > 255) {
                    throw new IllegalArgumentException("'" + h + "' is not an IPv4 address");
                }
            }
            actual = "ipv4";
        } else if (h.indexOf(':') >= 0 && h.matches("[0-9A-Fa-f:.]+")) {
            actual = "ipv6";
        } else if (HOSTNAME.matcher(h).matches()) {
            actual = "hostname";
        } else {
            throw new IllegalArgumentException("'" + h + "' is neither an IP address nor a host name");
        }
        if (declaredType != null && !declaredType.isBlank()) {
            String d = declaredType.trim().toLowerCase(Locale.ROOT);
            boolean ok = d.equals(actual) || d.equals("dns") && actual.equals("hostname")
                    || d.equals("hostname") && !actual.equals("hostname");
            if (!ok) {
                throw new IllegalArgumentException("endpoint '" + h + "' is declared " + declaredType + " but is " + actual);
            }
        }
        return new Endpoint(h, actual);
    }
}
