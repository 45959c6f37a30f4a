package org.nmws.service.security;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.nmws.service.measure.ClientLimits;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.measure.TestAdmission;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.authentication.www.BasicAuthenticationFilter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

/**
 * One filter chain for every transport (SOAP under /services, XML-RPC, plain HTTP, JSON):
 * stateless, no sessions or cookies, HTTP Basic and API keys, and an anonymous client whose
 * roles depend on where it connects from; what a browser sends for another web site may only
 * read ({@link CrossSiteRequests}: a browser's cached credentials and address are authority). Whether a request may start
 * a test is decided when it asks for one ({@link TestAdmission#authorize}), since the same
 * message form both queries and measures.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecurityProperties.class)
class SecurityConfig {

    @Bean
    PasswordEncoder passwordEncoder() {
        return PasswordEncoderFactories.createDelegatingPasswordEncoder();
    }

    /** Also keeps Spring Boot from creating its default user with a generated password. */
    @Bean
    InMemoryUserDetailsManager users(SecurityProperties props) {
        List<UserDetails> users = props.users().stream()
                .map(u -> User.withUsername(u.name()).password(u.password())
                        .authorities(SecurityProperties.authorities(u.roles()).toArray(String[]::new)).build())
                .toList();
        return new InMemoryUserDetailsManager(users);
    }

    /** For credentials that arrive inside a message (WS-Security) rather than in HTTP headers. */
    @Bean
    AuthenticationManager nmwsAuthenticationManager(InMemoryUserDetailsManager users, PasswordEncoder encoder) {
        DaoAuthenticationProvider dao = new DaoAuthenticationProvider(users);
        dao.setPasswordEncoder(encoder);
        return new ProviderManager(dao);
    }

    /** Each account's and key's limits, read once at start-up, given to every caller the transports build. */
    @Bean
    Callers callers(SecurityProperties props, TestAdmission admission) {
        java.util.Map<String, ClientLimits> limits = new java.util.HashMap<>();
        props.users().stream().filter(u -> u.limits() != null)
                .forEach(u -> limits.put(u.name(), u.limits().toClientLimits("nmws.security.users[" + u.name() + "].limits")));
        props.apiKeys().stream().filter(k -> k.limits() != null)
                .forEach(k -> limits.put(k.name(), k.limits().toClientLimits("nmws.security.api-keys[" + k.name() + "].limits")));
        java.util.Map<String, List<String>> authorities = new java.util.HashMap<>();
        props.users().forEach(u -> authorities.put(u.name(), SecurityProperties.authorities(u.roles())));
        props.apiKeys().forEach(k -> authorities.put(k.name(), SecurityProperties.authorities(k.roles())));
        return new Callers(admission, limits, props.anonymousLimits().toClientLimits("nmws.security.anonymous-limits"),
                authorities, SecurityProperties.authorities(props.anonymousRoles()));
    }

    @Bean
    SecurityFilterChain nmwsFilterChain(HttpSecurity http, SecurityProperties props, TestAdmission admission,
                                        @Value("${nmws.public-url:}") String publicUrl, Mesh mesh) throws Exception {
        PathPatternRequestMatcher.Builder path = PathPatternRequestMatcher.withDefaults();
        http.csrf(c -> c.disable())
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(c -> c.disable())
                .httpBasic(b -> b.realmName("nmws"))
                .anonymous(a -> a.authenticationFilter(new ByAddress(props, admission)))
                .addFilterBefore(new ApiKeyFilter(props.apiKeys()), BasicAuthenticationFilter.class)
                .addFilterBefore(new ClearTextCredentials(props.credentialsOnlyOverTls()), ApiKeyFilter.class)
                .addFilterBefore(new CrossSiteRequests(ServiceNames.of(props.hostNames(), java.util.stream.Stream.concat(
                        java.util.stream.Stream.of(publicUrl), mesh.points().stream().map(Mesh.Point::url)).toList())),
                        ClearTextCredentials.class)
                .authorizeHttpRequests(r -> r
                        // A streamed answer (the archive export) and an error page are later
                        // dispatches of a request already authorized; stateless, they carry no context.
                        .dispatcherTypeMatchers(DispatcherType.ASYNC, DispatcherType.ERROR).permitAll()
                        .requestMatchers(path.matcher("/actuator/health/**"), path.matcher("/actuator/info"),
                                path.matcher("/error")).permitAll()
                        // SOAP checks its own, as WS-Security credentials are inside the envelope.
                        .requestMatchers(path.matcher("/services/**")).permitAll()
                        .requestMatchers(path.matcher("/archive/**")).hasRole("ADMIN")
                        .requestMatchers(path.matcher(HttpMethod.DELETE, "/api/tests/**")).hasRole("MEASURE")
                        .requestMatchers(path.matcher(HttpMethod.PUT, "/api/schedules/**"),
                                path.matcher(HttpMethod.DELETE, "/api/schedules/**")).hasRole("MEASURE")
                        .anyRequest().hasRole("READ"));
        return http.build();
    }

    /**
     * The anonymous client's roles: nmws.security.anonymous-roles, plus measure from an address
     * in nmws.limits.test-clients (loopback unless the operator widens it).
     */
    static final class ByAddress extends AnonymousAuthenticationFilter {
        private final List<String> roles;
        private final TestAdmission admission;

        ByAddress(SecurityProperties props, TestAdmission admission) {
            super("nmws-anonymous");
            this.roles = props.anonymousRoles();
            this.admission = admission;
        }

        @Override
        protected Authentication createAuthentication(HttpServletRequest request) {
            List<String> mine = new java.util.ArrayList<>(roles);
            if (admission.allows(request.getRemoteAddr())) {
                mine.add(SecurityProperties.MEASURE);
            }
            List<String> authorities = SecurityProperties.authorities(mine);
            // AnonymousAuthenticationToken insists on one authority at least.
            return new AnonymousAuthenticationToken("nmws-anonymous", "anonymous",
                    AuthorityUtils.createAuthorityList(authorities.isEmpty() ? List.of("ROLE_ANONYMOUS")
                            : authorities));
        }
    }
}
