package org.nmws.service.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates an {@code X-Api-Key} header against the configured keys' SHA-256 digests.
 * Spring Security has no API-key filter of its own; this is the lookup and a constant-time
 * compare. Every configured key is compared, so the time does not tell which one came close.
 */
final class ApiKeyFilter extends OncePerRequestFilter {
    static final String HEADER = "X-Api-Key";
    private static final int MAX_KEY = 256;

    private final List<SecurityProperties.ApiKey> keys;

    ApiKeyFilter(List<SecurityProperties.ApiKey> keys) {
        this.keys = keys;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String presented = request.getHeader(HEADER);
        if (presented == null) {
            chain.doFilter(request, response);
            return;
        }
        SecurityProperties.ApiKey match = presented.length() <= MAX_KEY ? find(presented) : null;
        if (match == null) {
            // A wrong key is an error, not a fall-back to anonymous: the client meant to authenticate.
            response.setHeader("WWW-Authenticate", "Basic realm=\"nmws\"");
            Refusals.write(response, HttpServletResponse.SC_UNAUTHORIZED, "unknown API key");
            return;
        }
        SecurityContext context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(UsernamePasswordAuthenticationToken.authenticated(match.name(), null,
                AuthorityUtils.createAuthorityList(SecurityProperties.authorities(match.roles()))));
        SecurityContextHolder.setContext(context);
        chain.doFilter(request, response);
    }

    private SecurityProperties.ApiKey find(String presented) {
        byte[] digest = sha256(presented);
        SecurityProperties.ApiKey found = null;
        for (SecurityProperties.ApiKey k : keys) {
            if (MessageDigest.isEqual(digest, k.digest()) && found == null) {
                found = k;
            }
        }
        return found;
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }
}
