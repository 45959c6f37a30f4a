package org.nmws.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** Issue 21, finding 4: the guard read only measure=true, and never looked at Host. */
class CrossSiteRequestsTest {
    private final CrossSiteRequests filter = new CrossSiteRequests(ServiceNames.of(List.of("nmws.example.org"), List.of()));

    private MockHttpServletResponse run(MockHttpServletRequest request) throws Exception {
        MockHttpServletResponse response = new MockHttpServletResponse();
        filter.doFilter(request, response, new MockFilterChain());
        return response;
    }

    @Test
    void everyValueTheBinderTakesAsTrueActs() throws Exception {
        for (String v : List.of("true", "on", "yes", "1", "YES", " On ", "True")) {
            MockHttpServletRequest r = new MockHttpServletRequest("GET", "/api/diagnosis");
            r.addHeader("Sec-Fetch-Site", "cross-site");
            r.setParameter("measure", v);
            assertEquals(403, run(r).getStatus(), "measure=" + v);
            MockHttpServletRequest refresh = new MockHttpServletRequest("GET", "/api/cost");
            refresh.addHeader("Sec-Fetch-Site", "cross-site");
            refresh.setParameter("refresh", "false", v);
            assertEquals(403, run(refresh).getStatus(), "refresh=false&refresh=" + v);
        }
        MockHttpServletRequest read = new MockHttpServletRequest("GET", "/api/diagnosis");
        read.addHeader("Sec-Fetch-Site", "cross-site");
        read.setParameter("measure", "off");
        assertEquals(200, run(read).getStatus());
    }

    @Test
    void aRebindingRequestNamingAForeignHostIsRefused() throws Exception {
        MockHttpServletRequest r = new MockHttpServletRequest("POST", "/nmwg");
        r.addHeader("Host", "rebind.attacker.example:8080");
        r.addHeader("Origin", "http://rebind.attacker.example:8080");
        r.addHeader("Sec-Fetch-Site", "same-origin");
        MockHttpServletResponse response = run(r);
        assertEquals(403, response.getStatus());
        assertEquals("Host 'rebind.attacker.example:8080' is not a name this service answers to, so this request may be DNS"
                + " rebinding: it may not start tests or change anything here (add the name to nmws.security.host-names)\n",
                response.getContentAsString());
        MockHttpServletRequest get = new MockHttpServletRequest("GET", "/api/diagnosis");
        get.addHeader("Host", "rebind.attacker.example");
        get.setParameter("measure", "1");
        assertEquals(403, run(get).getStatus());
        MockHttpServletRequest read = new MockHttpServletRequest("GET", "/api/results");
        read.addHeader("Host", "rebind.attacker.example");
        assertEquals(200, run(read).getStatus(), "a read is not refused: the answer goes to the browser's own origin");
    }

    @Test
    void namesTheServiceAnswersToAct() throws Exception {
        for (String host : List.of("localhost:8080", "127.0.0.1:8080", "[::1]:8080", "10.1.2.3", "NMWS.example.org.", "nmws.example.org:443")) {
            MockHttpServletRequest r = new MockHttpServletRequest("POST", "/nmwg");
            r.addHeader("Host", host);
            assertEquals(200, run(r).getStatus(), host);
        }
    }

    @Test
    void anAsteriskTurnsTheHostCheckOff() {
        assertTrue(ServiceNames.of(List.of("*"), List.of()).answersTo("anything.example"));
        assertTrue(ServiceNames.of(List.of(), List.of("https://mesh-b.example:8443/")).answersTo("mesh-b.example:8443"));
    }
}
