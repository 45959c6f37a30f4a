package org.nmws.service.security;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.nmws.service.measure.ClientLimits;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may do what. Three roles: {@code read} (query stored results, list running tests),
 * {@code measure} (start tests, cancel them) and {@code admin} (export and import the
 * archive). Clients authenticate with HTTP Basic, an API key ({@code X-Api-Key}) or, over
 * SOAP, a WS-Security UsernameToken; the rest are anonymous, with {@code anonymousRoles},
 * and with {@code measure} as well when their address is in {@code nmws.limits.test-clients}
 * (loopback by default), so an unauthenticated client elsewhere never starts a test.
 *
 * @param users accounts: a name, a password in Spring Security's "{id}hash" form ({bcrypt}...,
 *        {pbkdf2}...; {noop}plain only for trials) and roles
 * @param apiKeys keys: a name, the SHA-256 of the key in hex (the key itself is not kept) and roles
 * @param anonymousRoles what an unauthenticated client may do: read (the default, as NM-WG
 *        archives are read openly) or nothing (empty)
 * @param anonymousLimits what anonymous clients that may measure (nmws.limits.test-clients) may ask
 * @param credentialsOnlyOverTls refuse a password or key sent in clear text from another host
 * @param hostNames names (Host header) this service answers to besides localhost, the machine's
 *        names and addresses, any IP literal, and the hosts of nmws.public-url and the mesh's
 *        points; a request that acts naming another host is refused (DNS rebinding); "*" accepts any
 */
@ConfigurationProperties("nmws.security")
public record SecurityProperties(
        @DefaultValue List<User> users,
        @DefaultValue List<ApiKey> apiKeys,
        @DefaultValue("read") List<String> anonymousRoles,
        @DefaultValue Limits anonymousLimits,
        @DefaultValue("true") boolean credentialsOnlyOverTls,
        @DefaultValue List<String> hostNames) {

    public static final String READ = "read";
    public static final String MEASURE = "measure";
    public static final String ADMIN = "admin";
    private static final List<String> ROLES = List.of(READ, MEASURE, ADMIN);

    public SecurityProperties {
        users = List.copyOf(users);
        apiKeys = List.copyOf(apiKeys);
        hostNames = List.copyOf(hostNames);
        anonymousRoles = checkRoles("nmws.security.anonymous-roles", anonymousRoles);
        if (anonymousRoles.contains(ADMIN)) {
            throw new IllegalArgumentException("nmws.security.anonymous-roles may not hold admin");
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (String n : java.util.stream.Stream.concat(users.stream().map(User::name), apiKeys.stream().map(ApiKey::name)).toList()) {
            if (!names.add(n)) {
                throw new IllegalArgumentException("nmws.security: the name '" + n + "' is given twice (users and keys share names)");
            }
        }
    }

    /**
     * A client's limits within the service's (nmws.limits): unset means the service's own.
     *
     * @param maxDuration longest test
     * @param maxCount most frames in a test
     * @param maxRateMbps fastest a test may send, Mbit/s of user data
     * @param testsPerHour tests started an hour
     * @param maxConcurrent tests running at once
     * @param destinations networks (CIDR) tests may go to; empty means any
     */
    public record Limits(Duration maxDuration, Integer maxCount, Double maxRateMbps, Integer testsPerHour, Integer maxConcurrent,
                         @DefaultValue List<String> destinations) {
        ClientLimits toClientLimits(String where) {
            return ClientLimits.of(where, maxDuration, maxCount, maxRateMbps, testsPerHour, maxConcurrent, destinations);
        }
    }

    public record User(String name, String password, @DefaultValue("read") List<String> roles, Limits limits) {
        public User {
            if (name == null || name.isBlank() || password == null || password.isBlank()) {
                throw new IllegalArgumentException("nmws.security.users: each user needs a name and a password");
            }
            if (!password.startsWith("{")) {
                throw new IllegalArgumentException("nmws.security.users[" + name
                        + "].password must name its encoding, as {bcrypt}$2a$... (nmws hash-password prints one)");
            }
            roles = checkRoles("nmws.security.users[" + name + "].roles", roles);
        }
    }

    public record ApiKey(String name, String sha256, @DefaultValue("read") List<String> roles, Limits limits) {
        public ApiKey {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("nmws.security.api-keys: each key needs a name");
            }
            if (sha256 == null || !sha256.matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("nmws.security.api-keys[" + name
                        + "].sha256 must be 64 hex digits (sha256sum of the key)");
            }
            sha256 = sha256.toLowerCase(Locale.ROOT);
            roles = checkRoles("nmws.security.api-keys[" + name + "].roles", roles);
        }

        byte[] digest() {
            return HexFormat.of().parseHex(sha256);
        }
    }

    private static List<String> checkRoles(String where, List<String> roles) {
        List<String> out = roles.stream().map(r -> r.trim().toLowerCase(Locale.ROOT)).filter(r -> !r.isEmpty()).toList();
        for (String r : out) {
            if (!ROLES.contains(r)) {
                throw new IllegalArgumentException(where + ": unknown role '" + r + "' (read, measure, admin)");
            }
        }
        return out;
    }

    /** Spring Security authorities for roles; admin implies measure and read, measure implies read. */
    static List<String> authorities(List<String> roles) {
        List<String> out = new java.util.ArrayList<>();
        if (roles.contains(ADMIN)) {
            out.add("ROLE_ADMIN");
        }
        if (roles.contains(ADMIN) || roles.contains(MEASURE)) {
            out.add("ROLE_MEASURE");
        }
        if (!roles.isEmpty()) {
            out.add("ROLE_READ");
        }
        return out;
    }
}
