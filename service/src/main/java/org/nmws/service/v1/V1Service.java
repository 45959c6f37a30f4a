package org.nmws.service.v1;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.xml.parsers.ParserConfigurationException;
import org.nmws.service.NmwsProperties;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.nmwg.ErrorCodes;
import org.nmws.service.nmwg.MessageHandler;
import org.nmws.service.nmwg.NmwgNamespaces;
import org.nmws.service.nmwg.SafeXml;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Answers v1 requests (and the XML-RPC requests shaped like them) through the NMWG v2
 * core: each request becomes an NMWG SetupDataRequest and, when the archive has nothing
 * and the client allows it, a MeasurementRequest, handed to the one {@link MessageHandler};
 * the NMWG answer is read back into measurements or a v1 fault. The dialect is a codec:
 * no characteristic, policy or store is known here.
 */
public class V1Service {
    private static final String NMWGT = NmwgNamespaces.TOPOLOGY;

    private final MessageHandler handler;
    private final double retryDelaySeconds;

    public V1Service(MessageHandler handler, NmwsProperties props) {
        this.handler = handler;
        // A busy path is held by one test at most this long: the honest wait before retrying.
        this.retryDelaySeconds = props.limits().maxDuration().toSeconds();
    }

    /**
     * Stored results in the request's window first; a new measurement when there are none
     * (or no window was asked) and the client allows it.
     */
    public V1Outcome execute(V1Request r) {
        try {
            Optional<Characteristic> c = Characteristic.lookup(r.characteristic());
            if (c.isEmpty() || !r.characteristic().contains(".")) {
                throw new V1Fault(V1Fault.Kind.Discovery, ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "characteristic '"
                        + r.characteristic() + "' is not measured here; known: " + known(), 0);
            }
            boolean windowAsked = r.from() != null || r.to() != null;
            if (windowAsked || !r.allowNewMeasurements()) {
                List<V1Outcome.Measurement> stored = ask("SetupDataRequest", r);
                if (!stored.isEmpty()) {
                    int from = Math.max(0, stored.size() - r.maxResults());
                    return new V1Outcome(r, statistics(r, stored.subList(from, stored.size())), false, null);
                }
                boolean windowReachesNow = r.to() == null || !r.to().isBefore(Instant.now());
                if (!r.allowNewMeasurements() || !windowReachesNow) {
                    throw new V1Fault(V1Fault.Kind.NoData, null, "no " + r.characteristic() + " measurements to "
                            + r.subject().dst().host() + " in the archive" + window(r)
                            + (r.allowNewMeasurements() ? "" : ", and allowNewMeasurements is false"), 0);
                }
            }
            return new V1Outcome(r, statistics(r, ask("MeasurementRequest", r)), true, null);
        } catch (V1Fault f) {
            return V1Outcome.failed(r, f);
        }
    }

    /**
     * Keeps the statistics the request asked for: a name matches a figure of that name or a
     * figure it prefixes (min: minRtt, minIpd; loss: lossPercent). A name matching nothing
     * is a Request fault naming what there is.
     */
    static List<V1Outcome.Measurement> statistics(V1Request r, List<V1Outcome.Measurement> ms) throws V1Fault {
        if (r.statistics().isEmpty() || ms.isEmpty()) {
            return List.copyOf(ms);
        }
        for (String asked : r.statistics()) {
            if (ms.get(0).statistics().keySet().stream().noneMatch(f -> matches(f, asked))) {
                throw new V1Fault(V1Fault.Kind.Request, "statistic '" + asked + "' is not available for "
                        + r.characteristic() + "; available: " + String.join(", ", ms.get(0).statistics().keySet()));
            }
        }
        List<V1Outcome.Measurement> out = new ArrayList<>(ms.size());
        for (V1Outcome.Measurement m : ms) {
            Map<String, Double> kept = new LinkedHashMap<>();
            m.statistics().forEach((f, v) -> {
                if (r.statistics().stream().anyMatch(a -> matches(f, a))) {
                    kept.put(f, v);
                }
            });
            out.add(new V1Outcome.Measurement(m.tool(), m.toolVersion(), m.start(), m.end(), m.parameters(), kept,
                    m.units(), m.environment(), m.maKey()));
        }
        return out;
    }

    static boolean matches(String figure, String asked) {
        String f = figure.toLowerCase(Locale.ROOT);
        String a = asked.toLowerCase(Locale.ROOT);
        return f.equals(a) || f.startsWith(a) && Character.isUpperCase(figure.charAt(asked.length()));
    }

    /** Builds the NMWG v2 request, has the core answer it, reads the answer back. */
    private List<V1Outcome.Measurement> ask(String type, V1Request r) throws V1Fault {
        Document response = handler.handle(nmwgRequest(type, r));
        return read(response.getDocumentElement(), r);
    }

    Element nmwgRequest(String type, V1Request r) {
        Document doc = newDocument();
        Element msg = el(doc, NmwgNamespaces.BASE, "nmwg:message");
        msg.setAttribute("type", type);
        msg.setAttribute("id", "v1." + Long.toHexString(System.nanoTime()));
        doc.appendChild(msg);
        Element md = el(doc, NmwgNamespaces.BASE, "nmwg:metadata");
        md.setAttribute("id", "m1");
        msg.appendChild(md);
        Element subject = el(doc, NmwgNamespaces.BASE, "nmwg:subject");
        subject.setAttribute("id", "s1");
        Element pair = el(doc, NMWGT, "nmwgt:endPointPair");
        if (r.subject().src() != null) {
            pair.appendChild(endPoint(doc, "nmwgt:src", r.subject().src()));
        }
        pair.appendChild(endPoint(doc, "nmwgt:dst", r.subject().dst()));
        subject.appendChild(pair);
        md.appendChild(subject);
        Element et = el(doc, NmwgNamespaces.BASE, "nmwg:eventType");
        et.setTextContent(r.characteristic());
        md.appendChild(et);
        if (type.equals("MeasurementRequest") && !r.parameters().isEmpty()) {
            md.appendChild(parameters(doc, NmwgNamespaces.BASE, "nmwg:parameters", r.parameters()));
        }
        String dataRef = "m1";
        if (type.equals("SetupDataRequest") && (r.from() != null || r.to() != null)) {
            Element sel = el(doc, NmwgNamespaces.BASE, "nmwg:metadata");
            sel.setAttribute("id", "m2");
            Element selSubject = el(doc, NmwgNamespaces.SELECT, "select:subject");
            selSubject.setAttribute("id", "s2");
            selSubject.setAttribute("metadataIdRef", "m1");
            sel.appendChild(selSubject);
            Map<String, String> window = new LinkedHashMap<>();
            if (r.from() != null) {
                window.put("startTime", r.from().toString());
            }
            if (r.to() != null) {
                window.put("endTime", r.to().toString());
            }
            sel.appendChild(parameters(doc, NmwgNamespaces.SELECT, "select:parameters", window));
            msg.appendChild(sel);
            dataRef = "m2";
        }
        Element data = el(doc, NmwgNamespaces.BASE, "nmwg:data");
        data.setAttribute("id", "d1");
        data.setAttribute("metadataIdRef", dataRef);
        msg.appendChild(data);
        return msg;
    }

    /** Reads an NMWG answer: an error code becomes a fault, "no data" an empty list, each data a measurement. */
    private List<V1Outcome.Measurement> read(Element message, V1Request r) throws V1Fault {
        Map<String, Element> metadata = new LinkedHashMap<>();
        List<Element> data = new ArrayList<>();
        for (Element e : V1Reader.children(message)) {
            if (!NmwgNamespaces.BASE.equals(e.getNamespaceURI())) {
                continue;
            }
            if ("metadata".equals(e.getLocalName())) {
                metadata.put(e.getAttribute("id"), e);
            } else if ("data".equals(e.getLocalName())) {
                data.add(e);
            }
        }
        List<V1Outcome.Measurement> out = new ArrayList<>();
        for (Element d : data) {
            Element md = metadata.get(d.getAttribute("metadataIdRef"));
            String eventType = md == null ? null : V1Reader.text(V1Reader.child(md, "eventType"));
            if (eventType != null && eventType.startsWith("error.")) {
                throw fault(eventType, resultText(d));
            }
            if (isNoData(d)) {
                continue;
            }
            out.add(measurement(md, d));
        }
        return out;
    }

    private V1Outcome.Measurement measurement(Element md, Element d) {
        Map<String, String> params = new LinkedHashMap<>();
        Element env = null;
        String maKey = null;
        if (md != null) {
            for (Element e : V1Reader.children(md)) {
                switch (e.getLocalName()) {
                    case "parameters" -> {
                        if (NmwgNamespaces.BASE.equals(e.getNamespaceURI())) {
                            for (Element p : V1Reader.children(e)) {
                                params.put(p.getAttribute("name"), p.hasAttribute("value") ? p.getAttribute("value")
                                        : p.getTextContent().trim());
                            }
                        }
                    }
                    case "environment" -> env = e;
                    case "key" -> {
                        NodeList ps = e.getElementsByTagNameNS(NmwgNamespaces.BASE, "parameter");
                        for (int i = 0; i < ps.getLength(); i++) {
                            Element p = (Element) ps.item(i);
                            if ("maKey".equals(p.getAttribute("name"))) {
                                maKey = p.hasAttribute("value") ? p.getAttribute("value") : p.getTextContent().trim();
                            }
                        }
                    }
                    default -> { }
                }
            }
        }
        Map<String, Double> stats = new LinkedHashMap<>();
        Map<String, String> units = new LinkedHashMap<>();
        for (Element datum : V1Reader.children(d)) {
            // Named figures (PingER-style name/value datums); per-frame datums are not v1 statistics.
            if (!datum.hasAttribute("name") || !datum.hasAttribute("value")) {
                continue;
            }
            try {
                stats.put(datum.getAttribute("name"), Double.parseDouble(datum.getAttribute("value")));
            } catch (NumberFormatException e) {
                continue;
            }
            if (datum.hasAttribute("valueUnits")) {
                units.put(datum.getAttribute("name"), datum.getAttribute("valueUnits"));
            }
        }
        String tool = "unknown";
        String version = null;
        Instant start = null;
        Instant end = null;
        if (env != null) {
            Element t = V1Reader.child(env, "tool");
            if (t != null) {
                tool = t.getAttribute("name");
                version = t.hasAttribute("version") ? t.getAttribute("version") : null;
            }
            start = env.hasAttribute("startTime") ? Instant.parse(env.getAttribute("startTime")) : null;
            end = env.hasAttribute("endTime") ? Instant.parse(env.getAttribute("endTime")) : null;
        }
        return new V1Outcome.Measurement(tool, version, start, end, params, stats, units, env, maKey);
    }

    /** The NMWG v2 error codes as v1 fault kinds. */
    V1Fault fault(String code, String text) {
        V1Fault.Kind kind;
        double delay = 0;
        if (code.equals(ErrorCodes.MP_BUSY) || code.equals(ErrorCodes.MP_RATE_LIMITED)) {
            kind = V1Fault.Kind.TryAgain;
            delay = retryDelaySeconds;
        } else if (code.equals(ErrorCodes.MP_MEASUREMENT)) {
            kind = V1Fault.Kind.Communication;
        } else if (code.equals(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED) || code.equals(ErrorCodes.ACTION_NOT_SUPPORTED)) {
            kind = V1Fault.Kind.Discovery;
        } else if (code.startsWith("error.common.auth") || code.startsWith("error.ma.auth")) {
            kind = V1Fault.Kind.Authorisation;
        } else if (code.equals(ErrorCodes.PARSE_ERROR) || code.equals(ErrorCodes.STRUCTURE)
                || code.equals(ErrorCodes.SUBJECT) || code.equals(ErrorCodes.PARAMETER)) {
            kind = V1Fault.Kind.Request;
        } else {
            kind = V1Fault.Kind.System;
        }
        return new V1Fault(kind, code, text, delay);
    }

    private static boolean isNoData(Element d) {
        for (Element e : V1Reader.children(d)) {
            if (NmwgNamespaces.RESULT.equals(e.getNamespaceURI()) && "noData".equals(e.getAttribute("type"))) {
                return true;
            }
        }
        return false;
    }

    private static String resultText(Element d) {
        StringBuilder sb = new StringBuilder();
        for (Element e : V1Reader.children(d)) {
            if (NmwgNamespaces.RESULT.equals(e.getNamespaceURI())) {
                sb.append(e.getTextContent().trim());
            }
        }
        return sb.length() == 0 ? "no reason given" : sb.toString();
    }

    private static String window(V1Request r) {
        return (r.from() == null ? "" : " from " + r.from()) + (r.to() == null ? "" : " to " + r.to());
    }

    private static String known() {
        List<String> names = new ArrayList<>();
        for (Characteristic c : Characteristic.values()) {
            names.add(c.dottedName());
        }
        return String.join(", ", names);
    }

    private static Element endPoint(Document doc, String qname, Endpoint e) {
        Element el = el(doc, NMWGT, qname);
        el.setAttribute("type", e.type().toLowerCase(Locale.ROOT));
        el.setAttribute("value", e.host());
        return el;
    }

    private static Element parameters(Document doc, String ns, String qname, Map<String, String> values) {
        Element params = el(doc, ns, qname);
        params.setAttribute("id", "p." + qname.substring(0, qname.indexOf(':')));
        for (Map.Entry<String, String> e : values.entrySet()) {
            Element p = el(doc, NmwgNamespaces.BASE, "nmwg:parameter");
            p.setAttribute("name", e.getKey());
            p.setTextContent(e.getValue());
            params.appendChild(p);
        }
        return params;
    }

    private static Element el(Document doc, String ns, String qname) {
        return doc.createElementNS(ns, qname);
    }

    static Document newDocument() {
        try {
            return SafeXml.hardenedFactory().newDocumentBuilder().newDocument();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean isElement(Node n) {
        return n.getNodeType() == Node.ELEMENT_NODE;
    }
}
