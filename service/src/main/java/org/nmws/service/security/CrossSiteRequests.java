package org.nmws.service.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Set;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses what another web site makes a browser send here. The service keeps no sessions, but
 * a browser holds ambient authority all the same: HTTP Basic credentials it cached for the
 * dashboard, and the measure role anonymous clients have by address (loopback). A page
 * elsewhere could then make it start tests (a form POSTed to /nmwg, an image whose address is
 * /api/diagnosis?measure=true). Browsers say where a request comes from (Sec-Fetch-Site, and
 * Origin on anything but a simple GET); a request from another site may read (the same-origin
 * policy keeps the answer from that site) but not change anything or start a test. Clients
 * that are not browsers send neither header and are not affected.
 *
 * <p>DNS rebinding makes a foreign page same-origin: its name is made to resolve to this
 * machine, and the browser then sends Host, Origin and Sec-Fetch-Site that all agree. Only the
 * Host gives it away, so a request that acts must name this service in its Host
 * ({@link ServiceNames}; issue 21).
 */
final class CrossSiteRequests extends OncePerRequestFilter {
    /** What Spring's binder reads as true for a boolean parameter (it trims and ignores case). */
    private static final Set<String> TRUE = Set.of("true", "on", "yes", "1");

    private final ServiceNames names;

    CrossSiteRequests(ServiceNames names) {
        this.names = names;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (actsOnSomething(request)) {
            if (crossSite(request)) {
                Refusals.write(response, HttpServletResponse.SC_FORBIDDEN,
                        "a request from another web site may not start tests or change anything here");
                return;
            }
            String host = request.getHeader("Host");
            if (!names.answersTo(host)) {
                Refusals.write(response, HttpServletResponse.SC_FORBIDDEN, "Host '" + printable(host)
                        + "' is not a name this service answers to, so this request may be DNS rebinding: it may not start"
                        + " tests or change anything here (add the name to nmws.security.host-names)");
                return;
            }
        }
        chain.doFilter(request, response);
    }

    private static String printable(String s) {
        String shown = s.length() > 100 ? s.substring(0, 100) + "..." : s;
        return shown.replaceAll("[^\\x20-\\x7e]", "?");
    }

    /** Whether a browser says the request comes from a page of another origin. */
    static boolean crossSite(HttpServletRequest request) {
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return true; // cross-site or same-site (another origin on the same site)
        }
        String origin = request.getHeader("Origin");
        if (origin == null) {
            return false;
        }
        if (origin.equals("null")) {
            return true; // a sandboxed frame or a file: page
        }
        try {
            URI o = URI.create(origin);
            String host = request.getHeader("Host");
            String port = o.getPort() < 0 ? "" : ":" + o.getPort();
            return host == null || !host.equalsIgnoreCase(o.getHost() + port);
        } catch (IllegalArgumentException malformed) {
            return true;
        }
    }

    /** Anything but a read: a write method, or a GET that asks for tests to be run. */
    static boolean actsOnSomething(HttpServletRequest request) {
        String m = request.getMethod();
        if (!m.equals("GET") && !m.equals("HEAD") && !m.equals("OPTIONS")) {
            return true;
        }
        return isTrue(request.getParameterValues("refresh")) || isTrue(request.getParameterValues("measure"));
    }

    /** Whether any of a parameter's values is one the binder takes as true (measure=on, refresh=YES, ...). */
    static boolean isTrue(String[] values) {
        if (values == null) {
            return false;
        }
        for (String v : values) {
            if (v != null && TRUE.contains(v.trim().toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }
}
