package org.nmws.service.psconfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * pSConfig's address classes (issue 23): a group's {"class": ...} selector stands for the
 * template's addresses its filters select (tag, host tag and no-agent, ip-version, netmask,
 * another class, and/or/not, an exclude-filter; data source current-config or the requesting
 * agent); a jq filter or an undefined class is listed as not run with the reason. The template
 * passes nmws's schema.
 */
class AddressClassesTest {
    private static final String TEMPLATE = """
            {"addresses": {
               "a-thr": {"address": "10.1.0.1", "tags": ["throughput"], "host": "ha"},
               "a-lat": {"address": "10.1.0.2", "tags": ["latency"], "host": "ha"},
               "b-thr": {"address": "10.2.0.1", "tags": ["throughput"], "host": "hb"},
               "b-lat": {"address": "10.2.0.2", "tags": ["latency"], "host": "hb"},
               "c-v6":  {"address": "fd00::3", "tags": ["latency", "v6"]},
               "d-name": {"address": "d.example.net", "tags": ["throughput"]}},
             "hosts": {"ha": {"tags": ["site-a"]}, "hb": {"tags": ["site-b"], "no-agent": true}},
             "address-classes": {
               "thr": {"data-source": {"type": "current-config"}, "match-filter": {"type": "tag", "tag": "throughput"}},
               "lat-v4": {"data-source": {"type": "current-config"},
                          "match-filter": {"type": "and", "filters": [{"type": "tag", "tag": "latency"},
                                                                     {"type": "ip-version", "ip-version": 4}]}},
               "net1": {"data-source": {"type": "current-config"}, "match-filter": {"type": "netmask", "netmask": "10.1.0.0/24"}},
               "not-site-b": {"data-source": {"type": "current-config"},
                              "match-filter": {"type": "not", "filter": {"type": "host", "tag": "site-b"}}},
               "thr-but-names": {"data-source": {"type": "current-config"},
                                 "match-filter": {"type": "address-class", "class": "thr"},
                                 "exclude-filter": {"type": "or", "filters": [{"type": "ip-version", "ip-version": 4},
                                                                              {"type": "ip-version", "ip-version": 6}]}},
               "agent": {"data-source": {"type": "requesting-agent"}},
               "by-jq": {"data-source": {"type": "current-config"}, "match-filter": {"type": "jq", "jq": {"script": ".tags"}}}},
             "groups": {
               "thr-mesh": {"type": "mesh", "addresses": [{"class": "thr"}]},
               "lat-mesh": {"type": "mesh", "addresses": [{"class": "lat-v4"}, {"class": "net1"}]},
               "site": {"type": "disjoint", "unidirectional": true, "a-addresses": [{"class": "agent"}],
                        "b-addresses": [{"class": "not-site-b"}]},
               "names": {"type": "disjoint", "unidirectional": true, "a-addresses": [{"name": "a-thr"}],
                         "b-addresses": [{"class": "thr-but-names"}]},
               "jq": {"type": "mesh", "addresses": [{"class": "by-jq"}]},
               "missing": {"type": "mesh", "addresses": [{"class": "nowhere"}]}},
             "tests": {"rtt": {"type": "rtt", "spec": {"source": "{% address[0] %}", "dest": "{% address[1] %}"}}},
             "schedules": {"hourly": {"repeat": "PT1H"}},
             "tasks": {
               "thr": {"group": "thr-mesh", "test": "rtt", "schedule": "hourly"},
               "lat": {"group": "lat-mesh", "test": "rtt", "schedule": "hourly"},
               "site": {"group": "site", "test": "rtt", "schedule": "hourly"},
               "names": {"group": "names", "test": "rtt", "schedule": "hourly"},
               "jq": {"group": "jq", "test": "rtt", "schedule": "hourly"},
               "missing": {"group": "missing", "test": "rtt", "schedule": "hourly"}}}
            """;

    @Test
    void classSelectorsStandForTheAddressesTheirFiltersSelect() throws Exception {
        JsonNode t = new ObjectMapper().readTree(TEMPLATE);
        new PsConfigSchema().check(t, "classes");
        Plan plan = new Planner(Set.of("10.1.0.1")::contains).plan(t);
        // thr: a-thr, b-thr, d-name (tag throughput); from a-thr to the other two
        assertEquals(Set.of("thr:a-thr->b-thr", "thr:a-thr->d-name"), pairs(plan, "thr"));
        // lat: lat-v4 (a-lat, b-lat) then net1 (a-thr, a-lat again): a-thr to b-lat; not to a-lat,
        // on a-thr's own host (pSConfig's excludes-self "host", its default)
        assertEquals(Set.of("lat:a-thr->b-lat"), pairs(plan, "lat"));
        // site: this point (requesting agent) to every address not on a host tagged site-b, less its own host's
        assertEquals(Set.of("site:a-thr->c-v6", "site:a-thr->d-name"), pairs(plan, "site"));
        // names: class thr less the literal addresses of either version: d-name alone
        assertEquals(Set.of("names:a-thr->d-name"), pairs(plan, "names"));
        List<Plan.NotRun> notRun = plan.notRun();
        assertTrue(notRun.stream().anyMatch(n -> n.task().equals("jq") && n.reason().contains("does not evaluate jq")), notRun.toString());
        assertTrue(notRun.stream().anyMatch(n -> n.task().equals("missing")
                && n.reason().equals("address class nowhere is not defined in the template")), notRun.toString());
    }

    /** remote-addresses: the far address as this one reaches it; a disabled entry drops the pair. */
    @Test
    void aRemoteAddressIsTheFarEndAsThisAddressReachesIt() throws Exception {
        JsonNode t = new ObjectMapper().readTree("""
                {"addresses": {
                   "a": {"address": "10.1.0.1"},
                   "b": {"address": "10.2.0.1", "remote-addresses": {"a": {"address": "198.51.100.2"}}},
                   "c": {"address": "10.3.0.1", "remote-addresses": {"a": {"address": "10.3.0.9", "disabled": true}}},
                   "d": {"address": "10.4.0.1", "remote-addresses": {"b": {"address": "203.0.113.4"}}}},
                 "groups": {"m": {"type": "mesh", "addresses": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]}},
                 "tests": {"rtt": {"type": "rtt", "spec": {"source": "{% address[0] %}", "dest": "{% address[1] %}"}}},
                 "schedules": {"h": {"repeat": "PT1H"}},
                 "tasks": {"m": {"group": "m", "test": "rtt", "schedule": "h"}}}
                """);
        new PsConfigSchema().check(t, "remote");
        Plan plan = new Planner(Set.of("10.1.0.1")::contains).plan(t);
        Set<String> dests = new TreeSet<>();
        plan.runs().forEach(p -> dests.add(p.dst() + "=" + p.request().dst()));
        // b as a reaches it; c not at all from a; d as it is (its remote address is b's)
        assertEquals(Set.of("b=198.51.100.2", "d=10.4.0.1"), dests, plan.notRun().toString());
    }

    private static Set<String> pairs(Plan plan, String task) {
        Set<String> out = new TreeSet<>();
        for (Plan.Planned p : plan.runs()) {
            if (p.task().equals(task)) {
                out.add(task + ":" + p.src() + "->" + p.dst());
            }
        }
        return out;
    }
}
