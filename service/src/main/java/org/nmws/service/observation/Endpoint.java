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
    /**
     * A name whose last label is all digits is no host name (RFC 1123 2.1, RFC 3696 2): the system
     * resolver reads 127.1, 0177.0.0.1 and 2130706433 as IPv4 addresses in the old inet_aton forms.
     */
    private static final Pattern NUMERIC_LAST_LABEL = Pattern.compile("(.*\\.)?[0-9]+\\.?");

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
                if (Integer.parseInt(octet) > 255 || octet.length() > 1 && octet.charAt(0) == '0') {
                    // a leading zero is octal to the system resolver (010.0.0.1 is 8.0.0.1) and decimal to Java
                    throw new IllegalArgumentException("'" + h + "' is not an IPv4 address (four decimal numbers 0-255, no leading zeros)");
                }
            }
            actual = "ipv4";
        } else if (h.indexOf(':') >= 0 && h.matches("[0-9A-Fa-f:.]+")) {
            if (!isIpv6Literal(h)) {
                throw new IllegalArgumentException("'" + h + "' is not an IPv6 address");
            }
            actual = "ipv6";
        } else if (HOSTNAME.matcher(h).matches() && !NUMERIC_LAST_LABEL.matcher(h).matches()) {
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

    /** Whether the text is an IPv6 literal; a text with a colon is never looked up in DNS. */
    private static boolean isIpv6Literal(String h) {
        try {
            return h.charAt(0) != '.' && (java.net.InetAddress.getByName(h) instanceof java.net.Inet6Address
                    || h.regionMatches(true, 0, "::ffff:", 0, 7)); // IPv4-mapped: Java hands back the IPv4 address
        } catch (java.net.UnknownHostException notALiteral) {
            return false;
        }
    }
}
