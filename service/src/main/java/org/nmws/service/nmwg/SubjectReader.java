package org.nmws.service.nmwg;

import java.util.Map;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.ErrorCodes;
import org.w3c.dom.Element;

/**
 * Reads a path subject out of any subject element: nmwgt:endPointPair with src/dst
 * (value attribute or text), as perfSONAR clients send it.
 */
final class SubjectReader {
    private SubjectReader() {
    }

    /**
     * The subject a test needs: an interface for passive utilization (ifName, or ifAddress
     * of one of this host's interfaces; kept as a path whose dst is the interface), else a path.
     */
    static PathSubject forTest(Element subject, org.nmws.service.observation.Characteristic.ProbeTest test) throws NmwgException {
        if (test != org.nmws.service.observation.Characteristic.ProbeTest.UTILIZATION) {
            return path(subject);
        }
        Element nif = find(subject, "interface");
        if (nif == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "utilization needs an interface subject (nmwgt:interface with ifName or ifAddress)");
        }
        String name = null;
        String address = null;
        for (Element c : NmwgReader.children(nif)) {
            switch (c.getLocalName()) {
                case "ifName" -> name = c.getTextContent().trim();
                case "ifAddress" -> address = NmwgReader.attr(c, "value") != null ? NmwgReader.attr(c, "value") : c.getTextContent().trim();
                default -> { }
            }
        }
        if ((name == null || name.isEmpty()) && address != null) {
            try {
                java.net.NetworkInterface n = java.net.NetworkInterface.getByInetAddress(
                        java.net.InetAddress.getByName(Endpoint.parse(address, null).host()));
                name = n == null ? null : n.getName();
            } catch (java.io.IOException | IllegalArgumentException e) {
                throw new NmwgException(ErrorCodes.SUBJECT, "ifAddress '" + address + "': " + e.getMessage());
            }
            if (name == null) {
                throw new NmwgException(ErrorCodes.SUBJECT, "no interface of this measurement point has address " + address);
            }
        }
        if (name == null || name.isEmpty()) {
            throw new NmwgException(ErrorCodes.SUBJECT, "interface subject has neither ifName nor ifAddress");
        }
        return new PathSubject(null, new Endpoint(name, "interface"));
    }

    /** Whether the subject names an interface (nmwgt:interface), as SNMP MA clients ask. */
    static boolean hasInterface(Element subject) {
        return find(subject, "interface") != null;
    }

    /**
     * Merge chaining as perfSONAR's MAs do it: the nearer subject wins element by element and
     * the farther ones fill in what it lacks, at every depth (an endPointPair with dst in one
     * metadata and src in the chained one names both ends; an interface with ifAddress in one
     * and direction in the other has both). Elements match by local name, as the rest of this
     * reader does; a leaf both name is the nearer one's. The message is not changed: the nearest
     * is copied once, and only when a farther one adds to it, so a long chain of large subjects
     * costs one pass over them.
     *
     * @param nearestFirst the chain's subjects that have content, nearest first; not empty
     */
    static Element merge(java.util.List<Element> nearestFirst) {
        Element first = nearestFirst.get(0);
        Element out = first;
        for (Element farther : nearestFirst.subList(1, nearestFirst.size())) {
            if (adds(out, farther)) {
                if (out == first) {
                    out = (Element) first.cloneNode(true);
                }
                fillIn(out, farther);
            }
        }
        return out;
    }

    /** Whether from names an element, at any depth, that into lacks. */
    private static boolean adds(Element into, Element from) {
        Map<String, Element> mine = byLocalName(into);
        for (Element c : NmwgReader.children(from)) {
            Element same = mine.get(c.getLocalName());
            if (same == null || adds(same, c)) {
                return true;
            }
        }
        return false;
    }

    private static void fillIn(Element into, Element from) {
        Map<String, Element> mine = byLocalName(into);
        for (Element c : NmwgReader.children(from)) {
            Element same = mine.get(c.getLocalName());
            if (same == null) {
                Element copy = (Element) into.getOwnerDocument().importNode(c, true);
                into.appendChild(copy);
                mine.put(c.getLocalName(), copy);
            } else if (!NmwgReader.children(c).isEmpty()) {
                fillIn(same, c);
            }
        }
    }

    /** An element's children by local name, the first of each name. */
    private static Map<String, Element> byLocalName(Element e) {
        Map<String, Element> out = new java.util.HashMap<>();
        for (Element c : NmwgReader.children(e)) {
            out.putIfAbsent(c.getLocalName(), c);
        }
        return out;
    }

    /**
     * The src of an endPointPair that names no dst, or null: an MA query for everything
     * measured from a host (as perfSONAR's owamp and bwctl clients ask).
     */
    /** Whether the subject is an endPointPair naming neither end (every stored path). */
    static boolean emptyPair(Element subject) {
        Element pair = find(subject, "endPointPair");
        return pair != null && NmwgReader.children(pair).isEmpty();
    }

    static Endpoint sourceOnly(Element subject) throws NmwgException {
        Element pair = find(subject, "endPointPair");
        if (pair == null) {
            return null;
        }
        Element src = null;
        for (Element c : NmwgReader.children(pair)) {
            if ("dst".equals(c.getLocalName())) {
                return null;
            }
            if ("src".equals(c.getLocalName())) {
                src = c;
            }
        }
        if (src == null) {
            return null;
        }
        try {
            return endpoint(src);
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.SUBJECT, "subject: " + e.getMessage());
        }
    }

    static PathSubject path(Element subject) throws NmwgException {
        Element pair = find(subject, "endPointPair");
        if (pair == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "subject has no endPointPair: a path subject needs at least a dst");
        }
        Element src = null;
        Element dst = null;
        for (Element c : NmwgReader.children(pair)) {
            switch (c.getLocalName()) {
                case "src" -> src = c;
                case "dst" -> dst = c;
                default -> { }
            }
        }
        if (dst == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "endPointPair has no dst");
        }
        try {
            return new PathSubject(src == null ? null : endpoint(src), endpoint(dst));
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.SUBJECT, "subject: " + e.getMessage());
        }
    }

    /** Both ends of a subject used as a filter: either may be null. */
    record Ends(Endpoint src, Endpoint dst) {
    }

    /** Lenient read of a filter subject: an endPointPair with src, dst, both or neither. */
    static Ends ends(Element subject) throws NmwgException {
        Element pair = find(subject, "endPointPair");
        if (pair == null) {
            return new Ends(null, null);
        }
        Endpoint src = null;
        Endpoint dst = null;
        try {
            for (Element c : NmwgReader.children(pair)) {
                switch (c.getLocalName()) {
                    case "src" -> src = endpoint(c);
                    case "dst" -> dst = endpoint(c);
                    default -> { }
                }
            }
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.SUBJECT, "subject: " + e.getMessage());
        }
        return new Ends(src, dst);
    }

    private static Endpoint endpoint(Element e) {
        String value = NmwgReader.attr(e, "value");
        if (value == null) {
            value = e.getTextContent().trim();
        }
        return Endpoint.parse(value, NmwgReader.attr(e, "type"));
    }

    private static Element find(Element e, String localName) {
        for (Element c : NmwgReader.children(e)) {
            if (localName.equals(c.getLocalName())) {
                return c;
            }
            Element deeper = find(c, localName);
            if (deeper != null) {
                return deeper;
            }
        }
        return null;
    }
}
