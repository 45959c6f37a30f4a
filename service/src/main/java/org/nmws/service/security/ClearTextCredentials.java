package org.nmws.service.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a password or API key sent without TLS from another host: once on the wire in clear
 * it is spent, so the request is refused before it is checked, and the client learns to use
 * https. From loopback nothing crosses a network.
 */
final class ClearTextCredentials extends OncePerRequestFilter {
    private final boolean enforced;

    ClearTextCredentials(boolean enforced) {
        this.enforced = enforced;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        boolean credentials = request.getHeader("Authorization") != null || request.getHeader(ApiKeyFilter.HEADER) != null;
        if (enforced && credentials && !request.isSecure() && !isLoopback(request.getRemoteAddr())) {
            Refusals.write(response, HttpServletResponse.SC_FORBIDDEN,
                    "credentials are accepted only over TLS (https) from another host");
            return;
        }
        chain.doFilter(request, response);
    }

    static boolean isLoopback(String address) {
        if (address == null || !(address.indexOf(':') >= 0 || address.chars().allMatch(c -> c == '.' || Character.isDigit(c)))) {
            return false;
        }
        try {
            return InetAddress.getByName(address).isLoopbackAddress(); // a literal from the container: never resolved
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
