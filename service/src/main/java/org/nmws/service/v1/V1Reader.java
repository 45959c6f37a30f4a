package org.nmws.service.v1;

import org.nmws.service.observation.Namespaces;

import org.nmws.service.observation.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.PathSubject;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Decodes a GGF NM-WG v1 networkMeasurementRequest (the 2004-01 and 2004-10 namespaces).
 * Each request is decoded on its own, so one bad request becomes one Request fault and
 * its siblings are still answered. The v1 drafts' subject and time sub-schemas survive
 * only in part, so the forms read here are the plausible ones: a node is
 * {@code address/host} or {@code name}; a path is {@code source} and {@code destination}
 * nodes; when is {@code start}/{@code end} children (unix seconds or ISO 8601).
 */
final class V1Reader {
    static final int MAX_REQUESTS = 64;

    /** One decoded request, or the fault that decoding it raised. */
    record Decoded(V1Request request, V1Fault fault, String characteristic) {
    }

    static boolean isV1(Element root) {
        return root != null && Namespaces.isV1(root.getNamespaceURI());
    }

    List<Decoded> read(Element root) throws V1Fault {
        if (!"networkMeasurementRequest".equals(root.getLocalName())) {
            throw new V1Fault(V1Fault.Kind.Request, "expected a networkMeasurementRequest, got " + root.getLocalName());
        }
        List<Decoded> out = new ArrayList<>();
        for (Element r : children(root)) {
            if (!"request".equals(r.getLocalName())) {
                continue;
            }
            if (out.size() == MAX_REQUESTS) {
                throw new V1Fault(V1Fault.Kind.Request, "more than " + MAX_REQUESTS + " requests in one message");
            }
            String characteristic = text(child(r, "characteristic"));
            try {
                out.add(new Decoded(request(r), null, characteristic));
            } catch (V1Fault f) {
                out.add(new Decoded(null, f, characteristic));
            }
        }
        if (out.isEmpty()) {
            throw new V1Fault(V1Fault.Kind.Request, "networkMeasurementRequest holds no request element");
        }
        return out;
    }

    private static V1Request request(Element r) throws V1Fault {
        String characteristic = text(child(r, "characteristic"));
        if (characteristic == null) {
            throw new V1Fault(V1Fault.Kind.Request, "request has no characteristic");
        }
        Element subject = child(r, "subject");
        if (subject == null) {
            throw new V1Fault(V1Fault.Kind.Request, "request for " + characteristic + " has no subject");
        }
        PathSubject path = subject(subject);
        String tool = null;
        Instant from = null;
        Instant to = null;
        Map<String, String> params = new LinkedHashMap<>();
        Element methodology = child(r, "methodology");
        if (methodology != null) {
            Element t = child(methodology, "tool");
            if (t != null) {
                Element name = child(t, "name");
                tool = name != null ? text(name) : text(t);
            }
            Element when = child(methodology, "when");
            if (when != null) {
                from = time("when/start", first(when, "start", "startTime"));
                to = time("when/end", first(when, "end", "endTime"));
                if (from != null && to != null && from.isAfter(to)) {
                    throw new V1Fault(V1Fault.Kind.Request, "methodology/when starts at " + from + ", after its end " + to);
                }
            }
            for (Element set : children(methodology)) {
                if ("parameterSet".equals(set.getLocalName())) {
                    parameters(set, params);
                }
            }
        }
        List<String> statistics = new ArrayList<>();
        Element stats = child(r, "statistics");
        if (stats != null) {
            statistics(stats, statistics);
        }
        return new V1Request(characteristic, path, tool, from, to, params, List.copyOf(statistics),
                maxResults(r.getAttribute("maxResults")), bool(r.getAttribute("allowNewMeasurements"), true));
    }

    /** A path: source (optional: this host) and destination. A node: a path from this host to it. */
    static PathSubject subject(Element subject) throws V1Fault {
        Element path = child(subject, "path");
        try {
            if (path != null) {
                Element dst = first(path, "destination", "dst");
                if (dst == null) {
                    throw new V1Fault(V1Fault.Kind.Request, "subject path has no destination");
                }
                Element src = first(path, "source", "src");
                return new PathSubject(src == null ? null : node(src), node(dst));
            }
            Element node = child(subject, "node");
            if (node != null) {
                return new PathSubject(null, node(node));
            }
            if (child(subject, "name") != null || child(subject, "address") != null) {
                return new PathSubject(null, node(subject));
            }
        } catch (IllegalArgumentException e) {
            throw new V1Fault(V1Fault.Kind.Request, "subject: " + e.getMessage());
        }
        throw new V1Fault(V1Fault.Kind.Request, "subject has neither a node nor a path");
    }

    private static Endpoint node(Element node) {
        Element address = child(node, "address");
        String host = address != null ? text(child(address, "host")) : null;
        if (host == null && address != null) {
            host = text(address);
        }
        if (host == null) {
            host = text(child(node, "name"));
        }
        if (host == null) {
            host = text(node);
        }
        return Endpoint.parse(host, null);
    }

    private static void parameters(Element set, Map<String, String> into) throws V1Fault {
        for (Element p : children(set)) {
            if (!"parameter".equals(p.getLocalName())) {
                continue;
            }
            String name = p.getAttribute("name").trim();
            if (name.isEmpty()) {
                throw new V1Fault(V1Fault.Kind.Request, "a methodology parameter has no name");
            }
            String value = p.hasAttribute("value") ? p.getAttribute("value").trim() : p.getTextContent().trim();
            into.put(name, value);
        }
    }

    private static void statistics(Element stats, List<String> into) {
        List<Element> kids = children(stats);
        if (kids.isEmpty()) {
            for (String s : stats.getTextContent().trim().split("[\\s,]+")) {
                if (!s.isEmpty()) {
                    into.add(s);
                }
            }
            return;
        }
        for (Element s : kids) {
            String name = s.hasAttribute("name") ? s.getAttribute("name").trim() : s.getTextContent().trim();
            into.add(name.isEmpty() ? s.getLocalName() : name);
        }
    }

    private static int maxResults(String text) throws V1Fault {
        String t = text.trim();
        if (t.isEmpty() || t.equals("unbounded")) {
            return V1Request.UNBOUNDED;
        }
        try {
            int n = t.matches("\\d{1,9}") ? Integer.parseInt(t) : -1; // ASCII digits only
            if (n < 1) {
                throw new NumberFormatException();
            }
            return Math.min(n, V1Request.UNBOUNDED);
        } catch (NumberFormatException e) {
            throw new V1Fault(V1Fault.Kind.Request, "maxResults is '" + t + "': expected a positive integer or unbounded");
        }
    }

    private static boolean bool(String text, boolean dflt) throws V1Fault {
        String t = text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "" -> dflt;
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new V1Fault(V1Fault.Kind.Request, "allowNewMeasurements is '" + text + "': expected true or false");
        };
    }

    /** Unix seconds (with a fraction) or ISO 8601; null for an absent element. */
    static Instant time(String what, Element e) throws V1Fault {
        String t = e == null ? null : text(e);
        if (t == null && e != null && e.hasAttribute("value")) {
            t = e.getAttribute("value").trim();
        }
        return time(what, t);
    }

    static Instant time(String what, String t) throws V1Fault {
        if (t == null || t.isBlank()) {
            return null;
        }
        try {
            return Times.parse(what, t);
        } catch (IllegalArgumentException e) {
            throw new V1Fault(V1Fault.Kind.Request, e.getMessage());
        }
    }

    private static Element first(Element e, String... names) {
        for (String n : names) {
            Element c = child(e, n);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    static Element child(Element e, String localName) {
        if (e == null) {
            return null;
        }
        for (Element c : children(e)) {
            if (localName.equals(c.getLocalName())) {
                return c;
            }
        }
        return null;
    }

    static List<Element> children(Element e) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeType() == Node.ELEMENT_NODE && n.getLocalName() != null) {
                out.add((Element) n);
            }
        }
        return out;
    }

    /** Trimmed text, or null when absent or blank. */
    static String text(Element e) {
        if (e == null) {
            return null;
        }
        String t = e.getTextContent().trim();
        return t.isEmpty() ? null : t;
    }
}
