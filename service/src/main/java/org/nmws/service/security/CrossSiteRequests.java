package org.nmws.service.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
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
 */
final class CrossSiteRequests extends OncePerRequestFilter {

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (crossSite(request) && actsOnSomething(request)) {
            Refusals.write(response, HttpServletResponse.SC_FORBIDDEN,
                    "a request from another web site may not start tests or change anything here");
            return;
        }
        chain.doFilter(request, response);
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
        return "true".equalsIgnoreCase(request.getParameter("refresh")) || "true".equalsIgnoreCase(request.getParameter("measure"));
    }
}
