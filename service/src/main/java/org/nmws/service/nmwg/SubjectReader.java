package org.nmws.service.nmwg;

import org.nmws.service.measure.Endpoint;
import org.nmws.service.measure.PathSubject;
import org.w3c.dom.Element;

/**
 * Reads a path subject out of any subject element: nmwgt:endPointPair with src/dst
 * (value attribute or text), as perfSONAR clients send it.
 */
final class SubjectReader {
    private SubjectReader() {
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
