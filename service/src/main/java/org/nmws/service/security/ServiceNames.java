package org.nmws.service.security;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The names this service answers to, for the Host check against DNS rebinding: a page of a
 * foreign name that the attacker's DNS later points at this machine is same-origin to the
 * browser, so only the Host header (the foreign name) gives it away. Accepted: any IP literal
 * (a browser that sends one was really sent to that address), localhost, the machine's host
 * names, the hosts of nmws.public-url and of the mesh's point URLs, and the operator's
 * nmws.security.host-names ("*" turns the check off). Fixed at start-up.
 */
final class ServiceNames {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern PORT = Pattern.compile(":\\d{1,5}$");

    private final Set<String> names;
    private final boolean any;

    private ServiceNames(Set<String> names, boolean any) {
        this.names = Collections.unmodifiableSet(names);
        this.any = any;
    }

    /**
     * @param configured nmws.security.host-names
     * @param urls URLs this service is reached by (nmws.public-url, the mesh's point URLs); blank ones are skipped
     */
    static ServiceNames of(Collection<String> configured, Collection<String> urls) {
        Set<String> names = new TreeSet<>();
        boolean any = false;
        for (String n : configured) {
            String name = normalize(n);
            if (name.equals("*")) {
                any = true;
            } else if (!name.isEmpty()) {
                names.add(name);
            }
        }
        names.add("localhost");
        try {
            InetAddress local = InetAddress.getLocalHost();
            names.add(normalize(local.getHostName()));
            names.add(normalize(local.getCanonicalHostName()));
        } catch (UnknownHostException e) {
            // a machine without a resolvable name of its own: its addresses and configured names still count
        }
        try {
            for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(i.getInetAddresses())) {
                    names.add(normalize(a.getHostAddress().replaceFirst("%.*$", "")));
                }
            }
        } catch (SocketException e) {
            // no interfaces listed: IP literals are accepted anyway
        }
        for (String url : urls) {
            if (url != null && !url.isBlank()) {
                String host = URI.create(url.trim()).getHost();
                if (host != null) {
                    names.add(normalize(host));
                }
            }
        }
        return new ServiceNames(names, any);
    }

    /** Whether a Host header names this service; a request without one (HTTP/1.0) is not a browser's. */
    boolean answersTo(String hostHeader) {
        if (any || hostHeader == null || hostHeader.isBlank()) {
            return true;
        }
        String h = hostHeader.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            return h.indexOf(']') > 0; // an IPv6 literal
        }
        String host = normalize(PORT.matcher(h).replaceFirst(""));
        return IPV4.matcher(host).matches() || names.contains(host);
    }

    Set<String> names() {
        return names;
    }

    private static String normalize(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }
}
