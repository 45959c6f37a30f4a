package org.nmws.service.nmwg;

import org.nmws.service.observation.Namespaces;
import org.nmws.service.usecase.ErrorCodes;

import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Reads an NMWG v2 message from a DOM. Lenient about where tool elements live (any
 * namespace for subject/parameters, text or value attributes), strict about the envelope:
 * the root must be nmwg:message with a type.
 */
public final class NmwgReader {

    public RequestMessage read(Document doc) throws NmwgException {
        return read(doc.getDocumentElement());
    }

    public RequestMessage read(Element root) throws NmwgException {
        if (!"message".equals(root.getLocalName()) || !Namespaces.BASE.equals(root.getNamespaceURI())) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "expected an nmwg:message in namespace "
                    + Namespaces.BASE + ", got {" + nullToEmpty(root.getNamespaceURI()) + "}"
                    + root.getLocalName());
        }
        String type = root.getAttribute("type").trim();
        if (type.isEmpty()) {
            throw new NmwgException(ErrorCodes.PARSE_ERROR, "nmwg:message has no type attribute");
        }
        List<RequestMessage.Metadata> metadata = new ArrayList<>();
        List<RequestMessage.Data> data = new ArrayList<>();
        for (Element child : children(root)) {
            if (!Namespaces.BASE.equals(child.getNamespaceURI())) {
                continue;
            }
            switch (child.getLocalName()) {
                case "metadata" -> metadata.add(readMetadata(child));
                case "data" -> data.add(new RequestMessage.Data(attr(child, "id"), attr(child, "metadataIdRef")));
                default -> { } // message-level parameters and unknown elements carry nothing we act on
            }
        }
        // A metadata id names what references point at: with two, which one a reference means
        // would be a guess. Nothing refers to a data id (each data is answered by the metadata it
        // names), so two data may share one, as perfSONAR's TracerouteMA example requests do.
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (RequestMessage.Metadata m : metadata) {
            if (!ids.add(m.id())) {
                throw new NmwgException(ErrorCodes.STRUCTURE, "two nmwg:metadata have the id '" + org.nmws.service.observation.Params.echo(m.id()) + "'");
            }
        }
        return new RequestMessage(attr(root, "id"), type, List.copyOf(metadata), List.copyOf(data));
    }

    private RequestMessage.Metadata readMetadata(Element md) throws NmwgException {
        String id = attr(md, "id");
        if (id == null) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "an nmwg:metadata has no id");
        }
        Element subject = null;
        String subjectRef = null;
        List<String> eventTypes = new ArrayList<>();
        List<RequestMessage.Param> params = new ArrayList<>();
        List<RequestMessage.Param> select = new ArrayList<>();
        String key = null;
        for (Element c : children(md)) {
            switch (c.getLocalName()) {
                case "subject" -> {
                    subject = c;
                    subjectRef = attr(c, "metadataIdRef");
                }
                case "eventType" -> {
                    String et = c.getTextContent().trim();
                    if (!et.isEmpty()) {
                        eventTypes.add(et);
                    }
                }
                case "parameters" -> readParams(c, Namespaces.SELECT.equals(c.getNamespaceURI()) ? select : params);
                case "key" -> key = readKey(c);
                case "time" -> readTime(c, select);
                default -> { }
            }
        }
        return new RequestMessage.Metadata(id, attr(md, "metadataIdRef"), subject, subjectRef,
                List.copyOf(eventTypes), List.copyOf(params), List.copyOf(select), key);
    }

    /**
     * An nmtm:time in a metadata, as a time window: its start and end (or its one value as
     * both), read as the select parameters startTime and endTime.
     */
    private static void readTime(Element time, List<RequestMessage.Param> into) {
        Element start = null;
        Element end = null;
        for (Element c : children(time)) {
            switch (c.getLocalName()) {
                case "start" -> start = c;
                case "end" -> end = c;
                default -> { }
            }
        }
        if (start != null || end != null) {
            if (start != null) {
                into.add(new RequestMessage.Param("startTime", null, timeValue(start)));
            }
            if (end != null) {
                into.add(new RequestMessage.Param("endTime", null, timeValue(end)));
            }
        } else if (timeValue(time) != null && !timeValue(time).isEmpty()) {
            into.add(new RequestMessage.Param("startTime", null, timeValue(time)));
            into.add(new RequestMessage.Param("endTime", null, timeValue(time)));
        }
    }

    /** A time stamp as nmtm writes it: a value attribute, an nmtm:value child, or text. */
    private static String timeValue(Element e) {
        String v = attr(e, "value");
        if (v != null) {
            return v;
        }
        for (Element c : children(e)) {
            if ("value".equals(c.getLocalName())) {
                return c.getTextContent().trim();
            }
        }
        return e.getTextContent().trim();
    }

    private static void readParams(Element parameters, List<RequestMessage.Param> into) {
        for (Element p : children(parameters)) {
            if (!"parameter".equals(p.getLocalName())) {
                continue;
            }
            String name = attr(p, "name");
            if (name == null) {
                continue;
            }
            String value = attr(p, "value");
            if (value == null) {
                // perfSONAR also wraps times: <parameter name="startTime"><nmtm:time value="..."/></parameter>
                Element time = children(p).stream().filter(c -> "time".equals(c.getLocalName())).findFirst().orElse(null);
                value = time != null ? timeValue(time) : p.getTextContent().trim();
            }
            into.add(new RequestMessage.Param(name, attr(p, "operator"), value));
        }
    }

    /** The key's maKey, or "" when the key carries none (a client that sent another archive's key). */
    private static String readKey(Element key) {
        for (Element params : children(key)) {
            if (!"parameters".equals(params.getLocalName())) {
                continue;
            }
            for (Element p : children(params)) {
                if ("maKey".equals(attr(p, "name"))) {
                    String v = attr(p, "value");
                    return v != null ? v : p.getTextContent().trim();
                }
            }
        }
        return "";
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

    /** The attribute's trimmed value, or null when absent or empty. */
    static String attr(Element e, String name) {
        if (!e.hasAttribute(name)) {
            return null;
        }
        String v = e.getAttribute(name).trim();
        return v.isEmpty() ? null : v;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
