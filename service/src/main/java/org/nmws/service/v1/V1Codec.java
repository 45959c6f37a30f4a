package org.nmws.service.v1;

import org.nmws.service.measure.Caller;

import org.nmws.service.observation.Namespaces;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nmws.service.observation.Endpoint;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The GGF NM-WG v1 dialect at the edge: a networkMeasurementRequest element in, a
 * networkMeasurementReport document out (schema nmws/xsd/v1/nmwg-v1-report.xsd), one
 * result or nmwgFault per request. Transports route here by the body element's namespace.
 */
public class V1Codec {
    static final String VERSION = "1.0";
    private final V1Reader reader = new V1Reader();
    private final V1Service service;
    private final int maxNewMeasurements;

    /** @param maxNewMeasurements most new tests one message may run (each may hold a path for minutes) */
    public V1Codec(V1Service service, int maxNewMeasurements) {
        this.service = service;
        this.maxNewMeasurements = maxNewMeasurements;
    }

    public static boolean isV1(Element root) {
        return V1Reader.isV1(root);
    }

    public Document handle(Element root, Caller caller) {
        Document doc = V1Service.newDocument();
        Element report = doc.createElementNS(Namespaces.V1, "networkMeasurementReport");
        report.setAttribute("version", VERSION);
        doc.appendChild(report);
        List<V1Reader.Decoded> decoded;
        try {
            decoded = reader.read(root);
        } catch (V1Fault f) {
            report.appendChild(fault(doc, f, 0));
            return doc;
        }
        int n = 0;
        int measured = 0;
        for (V1Reader.Decoded d : decoded) {
            n++;
            V1Outcome o;
            if (d.fault() != null) {
                o = V1Outcome.failed(null, d.fault());
            } else if (measured >= maxNewMeasurements && d.request().allowNewMeasurements()) {
                o = storedOnly(d.request(), caller);
            } else {
                o = service.execute(d.request(), caller);
            }
            measured += o.fault() == null && o.newMeasurement() ? 1 : 0;
            report.appendChild(o.fault() != null ? fault(doc, o.fault(), n) : result(doc, o, n));
        }
        return doc;
    }

    /**
     * Past the message's budget of new tests a request is answered from the archive only;
     * when that has nothing, TryAgain tells the client to send it in a message of its own.
     */
    private V1Outcome storedOnly(V1Request r, Caller caller) {
        V1Request stored = new V1Request(r.characteristic(), r.subject(), r.tool(), r.from(), r.to(), r.parameters(),
                r.statistics(), r.maxResults(), false);
        V1Outcome o = service.execute(stored, caller);
        if (o.fault() != null && o.fault().kind() == V1Fault.Kind.NoData) {
            return V1Outcome.failed(r, new V1Fault(V1Fault.Kind.TryAgain, null, "this message already ran "
                    + maxNewMeasurements + " new tests, the most one message may; send this request again", 1));
        }
        return o;
    }

    private static Element result(Document doc, V1Outcome o, int n) {
        Element result = el(doc, "result");
        result.setAttribute("request", Integer.toString(n));
        result.setAttribute("newMeasurement", Boolean.toString(o.newMeasurement()));
        result.appendChild(text(doc, "characteristic", o.request().characteristic()));
        Element subject = el(doc, "subject");
        Element path = el(doc, "path");
        if (o.request().subject().src() != null) {
            path.appendChild(node(doc, "source", o.request().subject().src()));
        }
        path.appendChild(node(doc, "destination", o.request().subject().dst()));
        subject.appendChild(path);
        result.appendChild(subject);
        for (V1Outcome.Measurement m : o.measurements()) {
            Element me = el(doc, "measurement");
            if (m.maKey() != null) {
                me.setAttribute("maKey", m.maKey());
            }
            if (m.pending()) {
                me.setAttribute("pending", "true");
            }
            Element methodology = el(doc, "methodology");
            Element tool = text(doc, "tool", m.tool());
            if (m.toolVersion() != null) {
                tool.setAttribute("version", m.toolVersion());
            }
            methodology.appendChild(tool);
            Element when = el(doc, "when");
            when.appendChild(text(doc, "start", String.valueOf(m.start())));
            when.appendChild(text(doc, "end", String.valueOf(m.end())));
            methodology.appendChild(when);
            Element set = el(doc, "parameterSet");
            for (Map.Entry<String, String> p : m.parameters().entrySet()) {
                Element pe = text(doc, "parameter", p.getValue());
                pe.setAttribute("name", p.getKey());
                set.appendChild(pe);
            }
            methodology.appendChild(set);
            me.appendChild(methodology);
            for (Map.Entry<String, Double> s : m.statistics().entrySet()) {
                Element se = text(doc, "statistic", number(s.getValue()));
                se.setAttribute("name", s.getKey());
                String units = m.units().get(s.getKey());
                if (units != null) {
                    se.setAttribute("units", units);
                }
                me.appendChild(se);
            }
            if (m.environment() != null) {
                me.appendChild(doc.importNode(m.environment(), true));
            }
            result.appendChild(me);
        }
        return result;
    }

    private static Element fault(Document doc, V1Fault f, int n) {
        Element fault = el(doc, "nmwgFault");
        fault.setAttribute("kind", f.kind().name());
        fault.setAttribute("request", Integer.toString(n));
        if (f.nmwgCode() != null) {
            fault.setAttribute("nmwgCode", f.nmwgCode());
        }
        fault.appendChild(text(doc, "code", Integer.toString(f.kind().code)));
        Element message = text(doc, "message", f.getMessage());
        message.setAttribute("lang", "en");
        fault.appendChild(message);
        if (f.kind() == V1Fault.Kind.TryAgain) {
            fault.appendChild(text(doc, "delay", number(f.delaySeconds())));
        }
        return fault;
    }

    private static Element node(Document doc, String name, Endpoint e) {
        Element node = el(doc, name);
        if (e.type().equals("hostname")) {
            node.appendChild(text(doc, "name", e.host()));
        } else {
            Element address = el(doc, "address");
            address.setAttribute("version", e.type().equals("ipv6") ? "6" : "4");
            address.appendChild(text(doc, "host", e.host()));
            node.appendChild(address);
        }
        return node;
    }

    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "");
    }

    private static Element text(Document doc, String name, String text) {
        Element e = el(doc, name);
        e.setTextContent(text);
        return e;
    }

    private static Element el(Document doc, String name) {
        return doc.createElementNS(Namespaces.V1, name);
    }
}
