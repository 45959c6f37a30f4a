package org.nmws.service.security;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.ClientLimits;
import org.nmws.service.measure.TestAdmission;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.schedule.Schedule;
import org.nmws.service.schedule.ScheduleOwners;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Turns the request a transport received into the {@link Caller} it hands down: its address,
 * the account or key Spring Security authenticated (HTTP Basic, API key, WS-Security), its
 * roles and limits. The one place below the servlet layer that reads the request's
 * thread-bound context; everything under the transports is given the caller explicitly.
 */
public final class Callers implements ScheduleOwners {
    private final TestAdmission admission;
    private final Map<String, ClientLimits> limitsByName;
    private final ClientLimits anonymousLimits;
    private final Map<String, List<String>> authoritiesByName;
    private final List<String> anonymousAuthorities;

    /**
     * @param authoritiesByName each account's and key's authorities (ROLE_...), for runs of its schedules
     * @param anonymousAuthorities what every anonymous client holds (nmws.security.anonymous-roles)
     */
    public Callers(TestAdmission admission, Map<String, ClientLimits> limitsByName, ClientLimits anonymousLimits,
                   Map<String, List<String>> authoritiesByName, List<String> anonymousAuthorities) {
        this.admission = admission;
        this.limitsByName = Map.copyOf(limitsByName);
        this.anonymousLimits = anonymousLimits;
        this.authoritiesByName = Map.copyOf(authoritiesByName);
        this.anonymousAuthorities = List.copyOf(anonymousAuthorities);
    }

    /** Callers without configured limits (unit tests, a service wired without nmws.security). */
    public static Callers unlimited(TestAdmission admission) {
        return new Callers(admission, Map.of(), ClientLimits.NONE, Map.of(), List.of());
    }

    /**
     * A schedule's owner as the caller its runs are made by, with the roles and limits the owner
     * holds now: an account by its name, an anonymous client by the address it made the
     * schedule from (measure from an address in nmws.limits.test-clients, as when it asked).
     */
    @Override
    public Caller callerOf(Schedule s) {
        String owner = s.owner();
        if (owner == null) {
            return Caller.SERVICE;
        }
        if (owner.startsWith("account ")) {
            String name = owner.substring("account ".length());
            List<String> held = authoritiesByName.getOrDefault(name, List.of()); // removed since: no role at all
            return new Caller(s.ownerAddress(), name, held.contains(TestAdmission.MEASURE_AUTHORITY),
                    held.contains("ROLE_ADMIN"), limitsByName.getOrDefault(name, ClientLimits.NONE), null);
        }
        String address = s.ownerAddress();
        boolean measure = anonymousAuthorities.contains(TestAdmission.MEASURE_AUTHORITY) || admission.allows(address);
        return new Caller(address, null, measure, false, anonymousLimits, null);
    }

    /**
     * The caller of the request this thread serves (every transport, CXF's servlet and Spring
     * MVC, runs a request on its servlet thread, where Spring's RequestContextFilter bound it);
     * the service itself outside a request.
     */
    public Caller current() {
        if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes a) {
            return of(a.getRequest(), SecurityContextHolder.getContext().getAuthentication());
        }
        return Caller.SERVICE;
    }

    /** A request's caller as its authentication says; without web security (null), by address alone. */
    public Caller of(HttpServletRequest request, Authentication auth) {
        String address = request.getRemoteAddr();
        String forwardedBy = request.getHeader(Forwarder.FORWARDED_HEADER);
        if (auth == null) {
            return admission.unauthenticated(address, forwardedBy);
        }
        boolean measure = has(auth, TestAdmission.MEASURE_AUTHORITY);
        boolean admin = has(auth, "ROLE_ADMIN");
        if (auth instanceof AnonymousAuthenticationToken) {
            return new Caller(address, null, measure, admin, anonymousLimits, forwardedBy);
        }
        return new Caller(address, auth.getName(), measure, admin, limitsByName.getOrDefault(auth.getName(), ClientLimits.NONE),
                forwardedBy);
    }

    private static boolean has(Authentication auth, String authority) {
        return auth.getAuthorities().stream().anyMatch(g -> authority.equals(g.getAuthority()));
    }
}
