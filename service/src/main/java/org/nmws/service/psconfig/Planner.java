package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nmws.service.schedule.ScheduleRequest;

/**
 * This point's share of a checked template. A task's group gives address tuples (mesh: every
 * ordered pair; disjoint: a to b, and b to a unless unidirectional; list: single addresses),
 * less excludes and excludes-self; the tuple's scheduled-by address (the other one when that
 * has no agent) is the one whose point runs it, so a point runs the tuples whose scheduling
 * address is one of its own. The test's spec, its template variables filled in, is mapped to
 * an nmws characteristic; the task's schedule to an nmws schedule. Whatever cannot be mapped
 * is listed with why.
 */
final class Planner {
    private static final Pattern VARIABLE = Pattern.compile("\\{%\\s*([^%]*?)\\s*%}");
    private static final Pattern INDEXED = Pattern.compile("(address|pscheduler_address|lead_bind_address)\\[(\\d+)]");
    /** The archivers nmws is to deliver to (issue 23, item 3); others are not known. */
    static final Set<String> KNOWN_ARCHIVERS = Set.of("http", "opensearch", "rabbitmq", "kafka");

    private final Predicate<String> isSelf;

    /** @param isSelf whether an address (a name or a literal, as the template writes it) is this point's */
    Planner(Predicate<String> isSelf) {
        this.isSelf = isSelf;
    }

    /** An address of the template, as a selector picks it. */
    record Address(String name, String address, String host, boolean noAgent, int responderPort) {
    }

    Plan plan(JsonNode t) {
        List<Plan.Planned> runs = new ArrayList<>();
        List<Plan.NotRun> notRun = new ArrayList<>();
        List<Plan.Archive> archives = new ArrayList<>();
        t.path("archives").fields().forEachRemaining(e -> archives.add(new Plan.Archive(e.getKey(),
                e.getValue().path("archiver").asText(), KNOWN_ARCHIVERS.contains(e.getValue().path("archiver").asText()))));
        Map<String, Boolean> selfCache = new java.util.HashMap<>();
        List<String> notes = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = t.path("tasks").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String task = e.getKey();
            int before = runs.size() + notRun.size();
            try {
                task(t, task, e.getValue(), selfCache, runs, notRun);
            } catch (TestMapping.NotRunnable why) {
                notRun.add(new Plan.NotRun(task, null, why.getMessage()));
            }
            if (runs.size() + notRun.size() == before) {
                notes.add("task " + task + ": none of its pairs is scheduled by this point");
            }
        }
        return new Plan(runs, notRun, archives, notes);
    }

    private void task(JsonNode t, String task, JsonNode spec, Map<String, Boolean> selfCache, List<Plan.Planned> runs,
                      List<Plan.NotRun> notRun) throws TestMapping.NotRunnable {
        if (spec.path("disabled").asBoolean(false)) {
            throw new TestMapping.NotRunnable("the task is disabled");
        }
        JsonNode test = need(t, "tests", spec.path("test").asText(), task);
        JsonNode group = need(t, "groups", spec.path("group").asText(), task);
        String type = test.path("type").asText();
        if (!TestMapping.TOOLS.containsKey(type)) {
            TestMapping.map(type, JsonNodeFactory.instance.objectNode(), 0); // throws: why this type is not run
        }
        String tool = null; // the first tool nmws runs, in the task's order of preference (pScheduler's)
        if (spec.has("tools")) {
            Set<String> ours = TestMapping.TOOLS.getOrDefault(type, Set.of());
            boolean any = false;
            for (JsonNode t2 : spec.get("tools")) {
                if (!any && ours.contains(t2.asText())) {
                    tool = t2.asText();
                }
                any |= ours.contains(t2.asText());
            }
            if (!any) {
                throw new TestMapping.NotRunnable("tools " + spec.get("tools") + ": nmws's own " + type + " test stands in for "
                        + (ours.isEmpty() ? "no tool" : String.join(", ", new java.util.TreeSet<>(ours))) + " only");
            }
        }
        Map<String, JsonNode> archives = new java.util.LinkedHashMap<>();
        for (JsonNode a : spec.path("archives")) {
            JsonNode archive = t.path("archives").get(a.asText());
            if (archive == null) {
                throw new TestMapping.NotRunnable("archive " + a.asText() + " is not defined in the template");
            }
            if (!KNOWN_ARCHIVERS.contains(archive.path("archiver").asText())) {
                throw new TestMapping.NotRunnable("archive " + a.asText() + " has archiver " + archive.path("archiver").asText()
                        + ", which nmws does not know (it knows " + String.join(", ", new java.util.TreeSet<>(KNOWN_ARCHIVERS)) + ")");
            }
            archives.put(a.asText(), archive);
        }
        TaskSchedule schedule = TaskSchedule.of(type, spec.has("schedule") ? need(t, "schedules", spec.get("schedule").asText(), task)
                : null, spec.has("schedule"));
        int scheduledBy = spec.path("scheduled-by").asInt(0);
        boolean mine = false; // whether any pair is this point's to schedule
        for (List<Address> tuple : tuples(t, group, selfCache)) {
            String pair = String.join("->", tuple.stream().map(Address::name).toList());
            if (scheduledBy >= tuple.size()) {
                notRun.add(new Plan.NotRun(task, pair, "scheduled-by " + scheduledBy + " is past the group's " + tuple.size()
                        + " addresses"));
                continue;
            }
            int agent = scheduledBy;
            boolean flip = false;
            if (tuple.get(agent).noAgent() && tuple.size() == 2) {
                agent = 1 - agent;
                flip = true;
            }
            Address me = tuple.get(agent);
            if (!isSelf(me, selfCache)) {
                continue; // another point's share
            }
            try {
                runs.add(planned(task, type, test.path("spec"), tuple, me, flip, schedule, tool, archives));
            } catch (TestMapping.NotRunnable why) {
                notRun.add(new Plan.NotRun(task, pair, why.getMessage()));
            }
            mine = true;
        }
        if (mine) {
            // The task runs; its subtasks (tests tied to each of its runs' start or end) are
            // listed, not dropped: nmws's schedules repeat on their own, none follows another run.
            for (JsonNode name : spec.path("subtasks")) {
                JsonNode sub = t.path("subtasks").get(name.asText());
                notRun.add(new Plan.NotRun(task + "/" + name.asText(), null, sub == null
                        ? "subtask " + name.asText() + " is not defined in the template"
                        : "subtask of test " + sub.path("test").asText() + " at " + offset(sub.path("schedule-offset"))
                        + " is not run: nmws runs no test tied to another's run; the task itself runs"));
            }
        }
    }

    /** A subtask's offset as pSConfig says it: "start", "PT5S after end". */
    private static String offset(JsonNode o) {
        String type = o.path("type").asText("start");
        return o.has("offset") ? o.get("offset").asText() + " " + o.path("relation").asText("after") + " " + type : type;
    }

    private Plan.Planned planned(String task, String type, JsonNode testSpec, List<Address> tuple, Address me, boolean flip,
                                 TaskSchedule schedule, String tool, Map<String, JsonNode> archives)
            throws TestMapping.NotRunnable {
        JsonNode spec = fill(testSpec, tuple, me, flip);
        if (spec.path("flip").asBoolean(false)) {
            throw new TestMapping.NotRunnable("the test is flipped (its source has no agent): nmws measures from this point only");
        }
        String source = spec.path("source").asText(me.address());
        if (!source.equalsIgnoreCase(me.address()) && !isSelf.test(source)) {
            throw new TestMapping.NotRunnable("the test's source " + source + " is not this point: nmws measures from itself only");
        }
        if (!spec.hasNonNull("dest")) {
            throw new TestMapping.NotRunnable(type + " spec has no dest");
        }
        String dest = spec.get("dest").asText();
        Address far = tuple.stream().filter(a -> a.address().equalsIgnoreCase(dest)).findFirst().orElse(null);
        TestMapping.Mapped m = TestMapping.map(type, spec, far == null ? 0 : far.responderPort(), tool);
        int ipVersion = spec.path("ip-version").asInt(0);
        if (ipVersion == 4 && dest.contains(":") || ipVersion == 6 && dest.matches("[0-9.]+")) {
            throw new TestMapping.NotRunnable("ip-version " + ipVersion + " but dest " + dest + " is of the other family");
        }
        String name = Plan.PREFIX + task + ":" + me.name() + ":" + (far == null ? dest : far.name());
        if (!name.matches("[A-Za-z0-9._:@-]{1,128}")) {
            throw new TestMapping.NotRunnable("schedule name " + name + " is longer than 128 or has characters outside [A-Za-z0-9._:@-]");
        }
        List<String> notes = new ArrayList<>(m.notes());
        notes.addAll(schedule.notes());
        if (ipVersion != 0 && !dest.matches("[0-9.]+") && !dest.contains(":")) {
            notes.add("ip-version " + ipVersion + " not enforced for a host name: the resolver's first address is measured");
        }
        ScheduleRequest r = new ScheduleRequest(m.characteristic(), dest, m.parameters(),
                m.continuous() ? null : Durations.seconds(schedule.repeat()),
                m.continuous() ? null : Durations.seconds(schedule.slip()),
                schedule.start() == null ? null : schedule.start().toString(),
                schedule.until() == null ? null : schedule.until().toString(), null, null, true, m.continuous(),
                archives(archives, tuple, me, flip), namedSource(spec, source, dest, notes));
        return new Plan.Planned(task, name, me.name(), far == null ? dest : far.name(), type, r, List.copyOf(notes),
                m.continuous() ? null : schedule.window());
    }

    /**
     * The spec's source when it names one that is an address of this host: the schedule's tests
     * name it, so their results carry it as pScheduler's do (test.spec.source, the rows of
     * perfSONAR's Grafana grids). A source this host does not hold (an address behind NAT) is
     * left out with a note: the test still runs from here.
     */
    private static String namedSource(JsonNode spec, String source, String dest, List<String> notes) {
        if (!spec.hasNonNull("source")) {
            return null;
        }
        try {
            org.nmws.service.measure.MeasurementService.checkSourceIsLocal(new org.nmws.service.observation.PathSubject(
                    org.nmws.service.observation.Endpoint.parse(source, null), org.nmws.service.observation.Endpoint.parse(dest, null)));
            return source;
        } catch (org.nmws.service.measure.MeasurementException | IllegalArgumentException e) {
            notes.add("source " + source + " is not an address of this host: its results name no source");
            return null;
        }
    }

    /**
     * The task's archives as nmws's archive specs (a JSON array), their template variables
     * filled for this pair ({% scheduled_by_address %} in a Logstash URL, say), each named by its
     * key in the template and checked as a schedule's archives are.
     */
    private static JsonNode archives(Map<String, JsonNode> archives, List<Address> tuple, Address me, boolean flip)
            throws TestMapping.NotRunnable {
        if (archives.isEmpty()) {
            return null;
        }
        var out = JsonNodeFactory.instance.arrayNode();
        for (Map.Entry<String, JsonNode> e : archives.entrySet()) {
            ObjectNode filled = (ObjectNode) fill(e.getValue(), tuple, me, flip);
            if (!filled.has("name") && !filled.has("label")) {
                filled.put("name", e.getKey());
            }
            try {
                org.nmws.service.archive.ArchiveTarget.parse(filled, e.getKey());
            } catch (IllegalArgumentException bad) {
                throw new TestMapping.NotRunnable("archive " + e.getKey() + ": " + bad.getMessage());
            }
            out.add(filled);
        }
        return out;
    }

    /** The group's address tuples, less excludes and excludes-self. */
    private List<List<Address>> tuples(JsonNode t, JsonNode group, Map<String, Boolean> selfCache)
            throws TestMapping.NotRunnable {
        String type = group.path("type").asText();
        List<List<Address>> out = new ArrayList<>();
        String excludesSelf = group.path("excludes-self").asText("host");
        switch (type) {
            case "mesh" -> {
                List<Address> all = addresses(t, group.path("addresses"), group);
                boolean[] mine = mine(all, selfCache);
                for (int i = 0; i < all.size(); i++) {
                    for (int j = 0; j < all.size(); j++) {
                        if ((mine[i] || mine[j]) && (i != j || excludesSelf.equals("disabled"))) {
                            out.add(List.of(all.get(i), all.get(j)));
                        }
                    }
                }
            }
            case "disjoint" -> {
                List<Address> as = addresses(t, group.path("a-addresses"), group);
                List<Address> bs = addresses(t, group.path("b-addresses"), group);
                boolean uni = group.path("unidirectional").asBoolean(false);
                boolean[] aMine = mine(as, selfCache);
                boolean[] bMine = mine(bs, selfCache);
                for (int i = 0; i < as.size(); i++) {
                    for (int j = 0; j < bs.size(); j++) {
                        if (!aMine[i] && !bMine[j]) {
                            continue; // neither end is this point: another point's share
                        }
                        Address a = as.get(i);
                        Address b = bs.get(j);
                        out.add(List.of(a, b));
                        if (!uni) {
                            out.add(List.of(b, a));
                        }
                    }
                }
            }
            case "list" -> {
                for (Address a : addresses(t, group.path("addresses"), group)) {
                    out.add(List.of(a));
                }
                return out;
            }
            default -> throw new TestMapping.NotRunnable("group type " + type + " is not known");
        }
        List<List<String>> excluded = new ArrayList<>();
        for (JsonNode ex : group.path("excludes")) {
            Address local = address(t, ex.path("local-address"), group);
            if (local == null) {
                continue; // disabled: none of its pairs is made
            }
            for (Address target : addresses(t, ex.path("target-addresses"), group)) {
                excluded.add(List.of(local.name(), target.name()));
            }
        }
        out.removeIf(p -> excluded.contains(List.of(p.get(0).name(), p.get(1).name())) || switch (excludesSelf) {
            case "address" -> p.get(0).address().equalsIgnoreCase(p.get(1).address());
            case "disabled" -> false;
            default -> p.get(0).host() != null && p.get(0).host().equalsIgnoreCase(p.get(1).host())
                    || p.get(0).address().equalsIgnoreCase(p.get(1).address());
        });
        // remote-addresses: the second address, as the first reaches it, by an address of its own
        // for that one (a NAT's outside, a link's far side), or not at all when that entry is disabled
        List<List<Address>> seen = new ArrayList<>(out.size());
        for (List<Address> p : out) {
            Address b = remote(t, p.get(1), p.get(0));
            if (b != null) {
                seen.add(List.of(p.get(0), b));
            }
        }
        return seen;
    }

    /** Address a as seen from address 'from': its remote-addresses entry for it, else a; null when disabled. */
    private static Address remote(JsonNode t, Address a, Address from) {
        JsonNode r = t.path("addresses").path(a.name()).path("remote-addresses").get(from.name());
        if (r == null) {
            return a;
        }
        if (r.path("disabled").asBoolean(false)) {
            return null;
        }
        String address = r.path("address").asText(a.address());
        return new Address(a.name(), address, a.host(), a.noAgent(), a.responderPort());
    }

    /**
     * Which addresses are this point's: a pair is made only when one of its ends is (the
     * scheduling end is one of the two), so a point of a mesh of 600 addresses makes 1,200
     * pairs per task rather than 360,000.
     */
    private boolean[] mine(List<Address> addresses, Map<String, Boolean> selfCache) {
        boolean[] out = new boolean[addresses.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = isSelf(addresses.get(i), selfCache);
        }
        return out;
    }

    private boolean isSelf(Address a, Map<String, Boolean> selfCache) {
        return selfCache.computeIfAbsent(a.name() + "\n" + a.address(), k -> isSelf.test(a.address()) || isSelf.test(a.name()));
    }

    private List<Address> addresses(JsonNode t, JsonNode selectors, JsonNode group) throws TestMapping.NotRunnable {
        List<Address> out = new ArrayList<>();
        for (JsonNode s : selectors) {
            if (s.path("disabled").asBoolean(false)) {
                continue;
            }
            if (s.has("class")) {
                // an address class: the template's addresses its filters select, in the template's order
                for (String name : classMembers(t, s.get("class").asText())) {
                    Address a = address(t, JsonNodeFactory.instance.objectNode().put("name", name), group);
                    if (a != null) {
                        out.add(a);
                    }
                }
                continue;
            }
            Address a = address(t, s, group);
            if (a != null) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * The names of the addresses of a class (pSConfig's address-classes): from its data source
     * (current-config: the template's addresses; requesting-agent: those of them that are this
     * point), those its match-filter selects and its exclude-filter does not. Filters tag, host
     * (tag, no-agent), ip-version and netmask (on address literals: a host name is of neither
     * version and in no network, as it is not looked up), address-class, and, or, not; a jq
     * filter makes the class not runnable, with the reason.
     */
    private List<String> classMembers(JsonNode t, String cls) throws TestMapping.NotRunnable {
        JsonNode spec = t.path("address-classes").get(cls);
        if (spec == null) {
            throw new TestMapping.NotRunnable("address class " + cls + " is not defined in the template");
        }
        boolean agent = spec.path("data-source").path("type").asText("current-config").equals("requesting-agent");
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = t.path("addresses").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (agent && !isSelf.test(e.getValue().path("address").asText()) && !isSelf.test(e.getKey())) {
                continue;
            }
            if ((!spec.has("match-filter") || matches(t, spec.get("match-filter"), e.getKey(), e.getValue(), new java.util.HashSet<>()))
                    && !(spec.has("exclude-filter") && matches(t, spec.get("exclude-filter"), e.getKey(), e.getValue(),
                    new java.util.HashSet<>()))) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    private boolean matches(JsonNode t, JsonNode f, String name, JsonNode address, Set<String> classes)
            throws TestMapping.NotRunnable {
        String type = f.path("type").asText();
        switch (type) {
            case "tag" -> {
                return contains(address.path("tags"), f.path("tag").asText());
            }
            case "host" -> {
                JsonNode host = address.has("host") ? t.path("hosts").path(address.get("host").asText()) : null;
                if (f.has("jq")) {
                    throw new TestMapping.NotRunnable("address class filter host with jq: nmws does not evaluate jq");
                }
                if (host == null || host.isMissingNode()) {
                    return false;
                }
                return (!f.has("tag") || contains(host.path("tags"), f.get("tag").asText()))
                        && (!f.has("no-agent") || host.path("no-agent").asBoolean(false) == f.get("no-agent").asBoolean());
            }
            case "ip-version" -> {
                String a = address.path("address").asText();
                int v = a.contains(":") ? 6 : a.matches("[0-9.]+") ? 4 : 0;
                return v == f.path("ip-version").asInt();
            }
            case "netmask" -> {
                return inNetwork(address.path("address").asText(), f.path("netmask").asText());
            }
            case "address-class" -> {
                String other = f.path("class").asText();
                JsonNode spec = t.path("address-classes").get(other);
                if (spec == null) {
                    throw new TestMapping.NotRunnable("address class " + other + " is not defined in the template");
                }
                if (!classes.add(other)) {
                    throw new TestMapping.NotRunnable("address class " + other + " refers to itself");
                }
                boolean in = (!spec.has("match-filter") || matches(t, spec.get("match-filter"), name, address, classes))
                        && !(spec.has("exclude-filter") && matches(t, spec.get("exclude-filter"), name, address, classes));
                classes.remove(other);
                return in;
            }
            case "and", "or" -> {
                boolean and = type.equals("and");
                for (JsonNode sub : f.path("filters")) {
                    if (matches(t, sub, name, address, classes) != and) {
                        return !and;
                    }
                }
                return and;
            }
            case "not" -> {
                return !matches(t, f.path("filter"), name, address, classes);
            }
            case "jq" -> throw new TestMapping.NotRunnable("address class filter jq: nmws does not evaluate jq");
            default -> throw new TestMapping.NotRunnable("address class filter type " + type + " is not known");
        }
    }

    private static boolean contains(JsonNode array, String value) {
        for (JsonNode v : array) {
            if (v.asText().equals(value)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a literal address lies in a CIDR block (a host name lies in none: it is not looked up). */
    private static boolean inNetwork(String address, String cidr) throws TestMapping.NotRunnable {
        if (!address.matches("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
            return false;
        }
        String[] parts = cidr.split("/", 2);
        try {
            byte[] a = java.net.InetAddress.getByName(address).getAddress(); // literals only: no lookup
            byte[] n = java.net.InetAddress.getByName(parts[0]).getAddress();
            int bits = parts.length == 2 ? Integer.parseInt(parts[1]) : n.length * 8;
            if (a.length != n.length || bits < 0 || bits > n.length * 8) {
                return false;
            }
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >> (i % 8);
                if ((a[i / 8] & mask) != (n[i / 8] & mask)) {
                    return false;
                }
            }
            return true;
        } catch (java.net.UnknownHostException | NumberFormatException e) {
            throw new TestMapping.NotRunnable("address class filter netmask " + cidr + " is not a CIDR block");
        }
    }

    /** The address a selector names (null when it or its host is disabled). */
    private Address address(JsonNode t, JsonNode selector, JsonNode group) throws TestMapping.NotRunnable {
        if (selector.has("class")) {
            throw new TestMapping.NotRunnable("an address class (selector class " + selector.get("class").asText()
                    + ") names many addresses, where one is wanted (an exclude's local-address)");
        }
        String name = selector.path("name").asText();
        JsonNode spec = t.path("addresses").get(name);
        if (spec == null) {
            throw new TestMapping.NotRunnable("address " + name + " is not defined in the template");
        }
        String label = selector.has("label") ? selector.get("label").asText() : group.path("default-address-label").asText(null);
        String address = spec.path("address").asText();
        if (label != null) {
            JsonNode labelled = spec.path("labels").get(label);
            if (labelled == null && selector.has("label")) {
                throw new TestMapping.NotRunnable("address " + name + " has no label " + label);
            }
            if (labelled != null) {
                if (labelled.path("disabled").asBoolean(false)) {
                    return null;
                }
                address = labelled.path("address").asText();
            }
        }
        String host = spec.has("host") ? spec.get("host").asText() : null;
        JsonNode hostSpec = host == null ? null : t.path("hosts").get(host);
        if (spec.path("disabled").asBoolean(false) || hostSpec != null && hostSpec.path("disabled").asBoolean(false)) {
            return null;
        }
        boolean noAgent = spec.path("no-agent").asBoolean(false) || hostSpec != null && hostSpec.path("no-agent").asBoolean(false);
        return new Address(name, address, host, noAgent, spec.path("_meta").path("nmws-responder-port").asInt(0));
    }

    private static JsonNode need(JsonNode t, String section, String name, String task) throws TestMapping.NotRunnable {
        JsonNode n = t.path(section).get(name);
        if (n == null) {
            throw new TestMapping.NotRunnable("task " + task + " names " + section + " " + name + ", which the template does not define");
        }
        return n;
    }

    /** The test spec with its template variables filled in for this tuple. */
    private static JsonNode fill(JsonNode n, List<Address> tuple, Address me, boolean flip) throws TestMapping.NotRunnable {
        if (n.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                o.set(e.getKey(), fill(e.getValue(), tuple, me, flip));
            }
            return o;
        }
        if (n.isArray()) {
            var a = JsonNodeFactory.instance.arrayNode();
            for (JsonNode x : n) {
                a.add(fill(x, tuple, me, flip));
            }
            return a;
        }
        if (!n.isTextual() || !n.asText().contains("{%")) {
            return n;
        }
        String text = n.asText();
        Matcher whole = VARIABLE.matcher(text);
        if (whole.matches() && whole.group(1).equals("flip")) {
            return BooleanNode.valueOf(flip);
        }
        Matcher m = VARIABLE.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(variable(m.group(1), tuple, me, flip)));
        }
        m.appendTail(sb);
        return TextNode.valueOf(sb.toString());
    }

    private static String variable(String v, List<Address> tuple, Address me, boolean flip) throws TestMapping.NotRunnable {
        Matcher m = INDEXED.matcher(v);
        if (m.matches()) {
            int i = Integer.parseInt(m.group(2));
            if (i >= tuple.size()) {
                throw new TestMapping.NotRunnable("template variable " + v + " is past the group's " + tuple.size() + " addresses");
            }
            return tuple.get(i).address();
        }
        return switch (v) {
            case "scheduled_by_address" -> me.address();
            case "flip" -> Boolean.toString(flip);
            case "localhost" -> "localhost";
            default -> throw new TestMapping.NotRunnable("template variable {% " + v + " %} is not supported by nmws "
                    + "(it fills address[i], pscheduler_address[i], lead_bind_address[i], scheduled_by_address, flip, localhost)");
        };
    }

    /**
     * A task's schedule as nmws's can hold it. Times relative to when the template is read (a
     * duration) and counts of runs are kept as a {@link Plan.Window} that the agent fixes when
     * it first makes the schedule.
     */
    record TaskSchedule(Duration repeat, Duration slip, Instant start, Instant until, Plan.Window window, List<String> notes) {
        /** The period a task that runs once is held with: its one run is the first slot. */
        static final Duration ONCE = Duration.ofDays(1);

        static TaskSchedule of(String type, JsonNode s, boolean named) throws TestMapping.NotRunnable {
            if (type.equals("latencybg")) {
                return new TaskSchedule(null, null, null, null, null, named ? List.of("a background test runs continuously; its "
                        + "schedule is not used") : List.of());
            }
            List<String> notes = new ArrayList<>();
            try {
                Duration repeat;
                Long maxRuns = s != null && s.has("max-runs") ? s.get("max-runs").asLong() : null;
                if (s == null || !s.has("repeat")) {
                    // pScheduler runs it once: a schedule of one run, at its start
                    repeat = ONCE;
                    maxRuns = 1L;
                    notes.add("no repeat: runs once, at its start");
                } else {
                    repeat = Durations.parse("repeat", s.get("repeat").asText());
                }
                Duration slip = s != null && s.has("slip") ? Durations.parse("slip", s.get("slip").asText()) : Duration.ZERO;
                if (s == null || !s.path("sliprand").asBoolean(false)) {
                    if (!slip.isZero()) {
                        notes.add("slip " + s.get("slip").asText() + " without sliprand: nmws starts each run on time");
                    }
                    slip = Duration.ZERO;
                } else if (slip.compareTo(repeat) > 0) {
                    notes.add("slip " + s.get("slip").asText() + " is longer than repeat: runs slip within one repeat");
                    slip = repeat;
                }
                Time start = s != null && s.has("start") ? Time.of("start", s.get("start").asText()) : null;
                Time until = s != null && s.has("until") ? Time.of("until", s.get("until").asText()) : null;
                boolean relative = start != null && start.at == null || until != null && until.at == null;
                if (!relative && (maxRuns == null || start != null)) {
                    // all absolute: the schedule's window is known now
                    Instant end = until == null ? null : until.at;
                    if (maxRuns != null) {
                        Instant last = start.at.plus(repeat.multipliedBy(maxRuns));
                        end = end == null || last.isBefore(end) ? last : end;
                        if (notes.stream().noneMatch(n -> n.startsWith("no repeat"))) {
                            notes.add("max-runs " + maxRuns + " held as an end at " + last);
                        }
                    }
                    return new TaskSchedule(repeat, slip, start == null ? null : start.at, end, null, notes);
                }
                if (maxRuns != null && notes.stream().noneMatch(n -> n.startsWith("no repeat"))) {
                    notes.add("max-runs " + maxRuns + " held as an end after that many repeats from its start");
                }
                if (start != null && start.at == null) {
                    notes.add("start " + s.get("start").asText() + " counted from when this point first made the schedule");
                }
                if (until != null && until.at == null) {
                    notes.add("until " + s.get("until").asText() + " counted from the schedule's start");
                }
                Plan.Window w = new Plan.Window(start == null ? null : start.at, start == null ? Duration.ZERO : start.after,
                        until == null ? null : until.at, until == null ? null : until.after, repeat, maxRuns);
                return new TaskSchedule(repeat, slip, null, null, w, notes);
            } catch (IllegalArgumentException | ArithmeticException | java.time.DateTimeException e) {
                throw new TestMapping.NotRunnable(e.getMessage()); // a max-runs or duration past what a time holds too
            }
        }
    }

    /** A time of a schedule as pSConfig writes it: absolute (at), or a duration after the template is read (after). */
    record Time(Instant at, Duration after) {
        static Time of(String field, String text) throws TestMapping.NotRunnable {
            try {
                return new Time(java.time.OffsetDateTime.parse(text).toInstant(), null);
            } catch (java.time.format.DateTimeParseException e) {
                // not absolute: a duration below
            }
            try {
                return new Time(Instant.parse(text), null);
            } catch (java.time.format.DateTimeParseException e) {
                // not absolute: a duration below
            }
            try {
                return new Time(null, Durations.parse(field, text));
            } catch (IllegalArgumentException bad) {
                throw new TestMapping.NotRunnable(field + " " + text + ": nmws takes a time (2026-01-01T00:00:00Z) or a duration"
                        + " after the template is first read in weeks, days, hours, minutes and seconds (PT1H), not pScheduler's"
                        + " @ forms, months or years");
            }
        }
    }
}
