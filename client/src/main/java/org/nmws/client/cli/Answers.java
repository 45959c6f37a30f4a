package org.nmws.client.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * An NMWG answer read for people and scripts: one result per data block, with the metadata it
 * refers to (eventType, subject, parameters, key) and its datums, printed as tables or as JSON.
 * Datums that carry a name and a value are figures (name, value, unit); others (per-frame
 * datums, iperf and owamp summaries, hops) are rows of their attributes; a datum with only
 * text is a message (an error's reason, an echo's answer).
 */
final class Answers {
    static final String NMWG = "http://ggf.org/ns/nmwg/base/2.0/";
    static final String TOPOLOGY = "http://ggf.org/ns/nmwg/topology/2.0/";
    static final String ENVIRONMENT = "http://nmws.org/ns/environment/1.0/";
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    /** Attributes that label every datum alike and say nothing in a table. */
    private static final List<String> QUIET = List.of("timeType");

    /** One result: what the metadata says, and the datums of its data block. */
    record Result(String eventType, String src, String dst, Map<String, String> parameters, String key,
                  List<Element> datums, String message, List<String> unsynchronisedClocks, List<String> clockSteps) {
        boolean isError() {
            return eventType != null && eventType.startsWith("error.");
        }
    }

    private Answers() {
    }

    /** The results of an answer given as XML text (NmwsClient.toXml). */
    static List<Result> read(String xml) {
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the service's answer: " + e.getMessage(), e);
        }
        Map<String, Element> metadata = new HashMap<>();
        for (Element md : children(doc.getDocumentElement(), NMWG, "metadata")) {
            metadata.put(md.getAttribute("id"), md);
        }
        List<Result> out = new ArrayList<>();
        for (Element data : children(doc.getDocumentElement(), NMWG, "data")) {
            Element md = metadata.get(data.getAttribute("metadataIdRef"));
            String eventType = null;
            String src = null;
            String dst = null;
            String key = null;
            Map<String, String> params = new LinkedHashMap<>();
            List<String> unsynchronised = new ArrayList<>();
            List<String> steps = new ArrayList<>();
            // A metadata may refine another (metadataIdRef): the nearest says it first.
            for (int hops = 0; md != null && hops < 8; hops++) {
                for (Element e : children(md, NMWG, "eventType")) {
                    eventType = eventType == null ? e.getTextContent().trim() : eventType;
                }
                for (Node n = md.getFirstChild(); n != null; n = n.getNextSibling()) {
                    if (n instanceof Element e && "subject".equals(e.getLocalName())) {
                        for (Element end : descendants(e, TOPOLOGY)) {
                            if ("src".equals(end.getLocalName()) && src == null) {
                                src = end.getAttribute("value");
                            } else if ("dst".equals(end.getLocalName()) && dst == null) {
                                dst = end.getAttribute("value");
                            }
                        }
                    }
                }
                for (Element p : children(md, NMWG, "parameters")) {
                    for (Element param : children(p, NMWG, "parameter")) {
                        String v = param.hasAttribute("value") ? param.getAttribute("value") : param.getTextContent().trim();
                        params.putIfAbsent(param.getAttribute("name"), v);
                    }
                }
                for (Element k : children(md, NMWG, "key")) {
                    for (Element p : children(k, NMWG, "parameters")) {
                        for (Element param : children(p, NMWG, "parameter")) {
                            if ("maKey".equals(param.getAttribute("name")) && key == null) {
                                key = param.hasAttribute("value") ? param.getAttribute("value") : param.getTextContent().trim();
                            }
                        }
                    }
                }
                for (Element e : descendants(md, ENVIRONMENT)) {
                    if ("clock".equals(e.getLocalName()) && "false".equals(e.getAttribute("synchronized"))
                            && e.getParentNode() instanceof Element host) {
                        String role = host.getAttribute("role").isEmpty() ? "src" : host.getAttribute("role");
                        if (!unsynchronised.contains(role)) {
                            unsynchronised.add(role);
                        }
                    }
                    if ("clock".equals(e.getLocalName()) && !e.getAttribute("stepNs").isEmpty()
                            && e.getParentNode() instanceof Element host) {
                        String role = host.getAttribute("role").isEmpty() ? "src" : host.getAttribute("role");
                        Values.decimal(e.getAttribute("stepNs")).ifPresent(ns -> steps.add((role.equals("dst") ? "receiver's"
                                : role.equals("src") ? "sender's" : role + "'s") + " clock was stepped by "
                                + (ns.signum() > 0 ? "+" : "") + Values.plain(ns.movePointLeft(9)) + " s"));
                    }
                }
                md = md.hasAttribute("metadataIdRef") ? metadata.get(md.getAttribute("metadataIdRef")) : null;
            }
            List<Element> datums = new ArrayList<>();
            String message = null;
            for (Node n = data.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e) {
                    if (e.getAttributes().getLength() == 0 && message == null) {
                        message = e.getTextContent().trim();
                    } else {
                        datums.add(e);
                    }
                }
            }
            out.add(new Result(eventType, src, dst, params, key, datums, message, unsynchronised, steps));
        }
        return out;
    }

    /**
     * The results as tables: a heading per result, a warning when its one-way figures rest on
     * clocks that are not synchronised, its figures (a numbered family such as interArrivalBin0..49
     * on one line), then its other datums by kind under a heading that names the kind. An error
     * result is left out here: the caller prints it as "error: ..." on standard error.
     */
    static void printTables(List<Result> results, PrintWriter out) {
        boolean first = true;
        for (Result r : results) {
            if (r.isError()) {
                continue;
            }
            if (!first) {
                out.println();
            }
            first = false;
            if (r.message() != null && r.datums().isEmpty()) {
                out.println(r.eventType() + ": " + r.message());
                continue;
            }
            StringBuilder h = new StringBuilder(r.eventType() == null ? "result" : r.eventType());
            if (r.dst() != null) {
                h.append(r.src() != null ? "  " + r.src() + " -> " + r.dst() : "  to " + r.dst());
            }
            if (r.key() != null) {
                h.append("  (maKey ").append(r.key()).append(')');
            }
            out.println(h);
            Map<String, String[]> named = new LinkedHashMap<>();
            Map<String, Table> others = new LinkedHashMap<>();
            for (Element d : r.datums()) {
                if (d.hasAttribute("name") && d.hasAttribute("value")) {
                    named.putIfAbsent(d.getAttribute("name"), new String[] {d.getAttribute("value"), unit(d)});
                    continue;
                }
                List<String> names = attributeNames(d);
                String kind = kindName(d) + " " + names;
                Table t = others.computeIfAbsent(kind, k -> new Table(names.stream().map(Answers::header).toList()));
                t.row(names.stream().map(n -> cell(d, n)).toList());
            }
            clockWarning(r, named).ifPresent(out::println);
            Table figures = figures(named);
            if (!figures.isEmpty()) {
                figures.print(out);
            }
            for (Map.Entry<String, Table> t : others.entrySet()) {
                out.println();
                out.println(t.getKey().substring(0, t.getKey().indexOf(" [")));
                t.getValue().print(out);
            }
            if (figures.isEmpty() && others.isEmpty()) {
                out.println("(no data)");
            }
        }
    }

    /** The error results of an answer as the lines "error: TEXT" puts on standard error. */
    static List<String> errors(List<Result> results) {
        List<String> lines = new ArrayList<>();
        for (Result r : results) {
            if (r.isError()) {
                lines.add(r.message() == null || r.message().isEmpty() ? r.eventType() : r.message() + " (" + r.eventType() + ")");
            }
        }
        return lines;
    }

    /** Figures whose names end in a number, at least this many in a row from 0 or 1, print as one line. */
    private static final int FAMILY = 5;
    private static final java.util.regex.Pattern NUMBERED = java.util.regex.Pattern.compile("(.*?[^0-9])([0-9]+)([^0-9]*)");

    /** The figures table: name, value and unit, a numbered family collapsed to "name0..49" and a summary. */
    static Table figures(Map<String, String[]> named) {
        Map<String, List<String>> families = new LinkedHashMap<>();
        for (String name : named.keySet()) {
            java.util.regex.Matcher m = NUMBERED.matcher(name);
            if (m.matches()) {
                families.computeIfAbsent(m.group(1) + "#" + m.group(3), k -> new ArrayList<>()).add(name);
            }
        }
        families.values().removeIf(f -> f.size() < FAMILY);
        Table figures = new Table(List.of("FIGURE", "VALUE", "UNIT"));
        java.util.Set<String> done = new java.util.HashSet<>();
        for (Map.Entry<String, String[]> e : named.entrySet()) {
            if (done.contains(e.getKey())) {
                continue;
            }
            List<String> family = families.values().stream().filter(f -> f.contains(e.getKey())).findFirst().orElse(null);
            if (family != null) {
                done.addAll(family);
                java.util.regex.Matcher lo = NUMBERED.matcher(family.get(0));
                java.util.regex.Matcher hi = NUMBERED.matcher(family.get(family.size() - 1));
                lo.matches();
                hi.matches();
                long nonZero = family.stream().filter(n -> Values.decimal(named.get(n)[0])
                        .map(v -> v.signum() != 0).orElse(true)).count();
                figures.row(List.of(lo.group(1) + lo.group(2) + ".." + hi.group(2) + lo.group(3),
                        family.size() + " values, " + nonZero + " not 0 (--json lists them)", ""));
                continue;
            }
            Values.Shown v = Values.figure(e.getValue()[0], e.getValue()[1]);
            figures.row(List.of(e.getKey(), v.value(), v.unit()));
        }
        return figures;
    }

    /**
     * "warning: ..." when a one-way result's delays rest on clocks that cannot vouch for them:
     * a host's clock said it was not synchronised (this host's in the environment; the far
     * end's as OWAMP's receiverSynchronised or STAMP and TWAMP's reflectorSynchronised figure),
     * or the bound on one-way delays (oneWayUncertaintyMs, both ends' stated errors) is above
     * the delay itself; empty otherwise, and for results without one-way figures.
     */
    static java.util.Optional<String> clockWarning(Result r, Map<String, String[]> named) {
        java.util.Optional<java.math.BigDecimal> bound = figure(named, "oneWayUncertaintyMs");
        java.util.Optional<java.math.BigDecimal> delay = java.util.stream.Stream.of("medianDelayMs", "medianForwardMs",
                        "meanDelayMs", "minDelayMs").map(n -> figure(named, n)).flatMap(java.util.Optional::stream).findFirst();
        if (delay.isEmpty() && bound.isEmpty()) {
            return java.util.Optional.empty();
        }
        if (!r.clockSteps().isEmpty()) {
            return java.util.Optional.of("warning: the " + String.join(" and the ", r.clockSteps())
                    + " during the test; one-way figures across the step are off by about that much");
        }
        List<String> whose = new ArrayList<>();
        for (String role : r.unsynchronisedClocks()) {
            whose.add(role.equals("dst") ? "receiver's" : role.equals("src") ? "sender's" : role + "'s");
        }
        if (figure(named, "receiverSynchronised").map(v -> v.signum() == 0).orElse(false) && !whose.contains("receiver's")) {
            whose.add("receiver's");
        }
        if (figure(named, "reflectorSynchronised").map(v -> v.signum() == 0).orElse(false)) {
            whose.add("reflector's");
        }
        boolean exceeds = bound.isPresent() && delay.isPresent() && bound.get().compareTo(delay.get().abs()) > 0;
        if (whose.isEmpty() && !exceeds) {
            return java.util.Optional.empty();
        }
        String which = whose.isEmpty() ? "the clocks are not synchronised well enough"
                : "the " + String.join(" and ", whose) + " clock" + (whose.size() > 1 ? "s are" : " is") + " not synchronised";
        return java.util.Optional.of("warning: " + which + "; the one-way figures are bounded only by "
                + bound.map(b -> "\u00b1" + Values.plain(b) + " ms").orElse("an unknown error")
                + (delay.isPresent() ? " (median delay " + Values.plain(delay.get()) + " ms)" : ""));
    }

    private static java.util.Optional<java.math.BigDecimal> figure(Map<String, String[]> named, String name) {
        return java.util.Optional.ofNullable(named.get(name)).flatMap(v -> Values.decimal(v[0]));
    }

    /** What a table of datums without a name holds, from their namespace: "hops", "iperf summary", ... */
    static String kindName(Element d) {
        String ns = d.getNamespaceURI() == null ? "" : d.getNamespaceURI();
        if (ns.contains("/traceroute/")) {
            return "hops";
        } else if (ns.contains("/iperf/")) {
            return "iperf summary";
        } else if (ns.contains("/delay/summary/")) {
            return "owamp summary";
        } else if (ns.contains("/delay/one-way/")) {
            return "one-way delay per frame";
        } else if (ns.contains("/ping/") || ns.contains("/pinger/")) {
            return "round trip per frame";
        }
        String[] parts = ns.replaceAll("/+$", "").split("/");
        String tool = parts.length >= 2 && parts[parts.length - 1].matches("[0-9.]+") ? parts[parts.length - 2]
                : parts.length > 0 ? parts[parts.length - 1] : "";
        return (tool.isEmpty() ? d.getLocalName() : tool + " " + d.getLocalName()).replace("datum", "data");
    }

    /** Attributes naming a time in NMWG's unix seconds. */
    private static final List<String> TIMES = List.of("timeValue", "startTime", "endTime", "time");
    /** Attributes in bit/s (iperf's throughput). */
    private static final List<String> BITS_PER_SECOND = List.of("throughput", "bandwidth");

    /** One attribute of a datum as a table cell: unix times as local ISO times, rates with units, numbers plain. */
    static String cell(Element d, String attribute) {
        String v = d.getAttribute(attribute);
        if (TIMES.contains(attribute) && (!d.hasAttribute("timeType") || "unix".equals(d.getAttribute("timeType")))) {
            return Values.unixTime(v);
        }
        if (BITS_PER_SECOND.contains(attribute)) {
            return Values.decimal(v).map(Values::bitsPerSecond).orElse(v);
        }
        return Values.plain(v);
    }

    /** The results as JSON: figures as numbers by name, other datums as objects of their attributes. */
    static String json(String messageType, List<Result> results) {
        ObjectNode root = JSON.createObjectNode();
        root.put("type", messageType);
        ArrayNode list = root.putArray("results");
        for (Result r : results) {
            ObjectNode o = list.addObject();
            o.put("eventType", r.eventType());
            if (r.src() != null || r.dst() != null) {
                ObjectNode s = o.putObject("subject");
                if (r.src() != null) {
                    s.put("src", r.src());
                }
                if (r.dst() != null) {
                    s.put("dst", r.dst());
                }
            }
            if (r.message() != null) {
                o.put(r.isError() ? "error" : "message", r.message());
            }
            if (r.isError()) {
                continue;
            }
            if (r.key() != null) {
                o.put("maKey", r.key());
            }
            ObjectNode p = o.putObject("parameters");
            r.parameters().forEach(p::put);
            ObjectNode figures = o.putObject("figures");
            ObjectNode units = o.putObject("units");
            ArrayNode datums = o.putArray("datums");
            for (Element d : r.datums()) {
                if (d.hasAttribute("name") && d.hasAttribute("value")) {
                    if (!figures.has(d.getAttribute("name"))) {
                        number(figures, d.getAttribute("name"), d.getAttribute("value"));
                        if (!unit(d).isEmpty()) {
                            units.put(d.getAttribute("name"), unit(d));
                        }
                    }
                    continue;
                }
                ObjectNode e = datums.addObject();
                e.put("type", d.getNodeName());
                for (String n : attributeNames(d)) {
                    number(e, n, d.getAttribute(n));
                }
            }
        }
        try {
            return JSON.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final java.util.regex.Pattern JSON_NUMBER =
            java.util.regex.Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?");

    /**
     * A value as a JSON number when it is written as one, else as a string. Decimals go as
     * BigDecimal so that every digit the service wrote is kept (a timeValue has nanoseconds).
     */
    static void number(ObjectNode o, String name, String value) {
        if (!JSON_NUMBER.matcher(value).matches()) {
            o.put(name, value);
        } else if (value.matches("-?[0-9]{1,18}")) {
            o.put(name, Long.parseLong(value));
        } else {
            o.put(name, new java.math.BigDecimal(value));
        }
    }

    private static String unit(Element d) {
        return d.hasAttribute("valueUnits") ? d.getAttribute("valueUnits") : d.getAttribute("units");
    }

    private static String header(String attribute) {
        return attribute.toUpperCase(java.util.Locale.ROOT);
    }

    private static List<String> attributeNames(Element d) {
        List<String> names = new ArrayList<>();
        NamedNodeMap attrs = d.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (a.getNamespaceURI() == null && !QUIET.contains(a.getName())) {
                names.add(a.getName());
            }
        }
        names.sort(null);
        return names;
    }

    private static List<Element> children(Element parent, String ns, String local) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && ns.equals(e.getNamespaceURI()) && local.equals(e.getLocalName())) {
                out.add(e);
            }
        }
        return out;
    }

    private static List<Element> descendants(Element parent, String ns) {
        List<Element> out = new ArrayList<>();
        org.w3c.dom.NodeList all = parent.getElementsByTagNameNS(ns, "*");
        for (int i = 0; i < all.getLength(); i++) {
            out.add((Element) all.item(i));
        }
        return out;
    }
}
