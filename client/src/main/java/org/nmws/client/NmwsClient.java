package org.nmws.client;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBElement;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.ws.BindingProvider;
import jakarta.xml.ws.soap.SOAPBinding;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.apache.cxf.jaxws.JaxWsProxyFactoryBean;
import org.nmws.client.nmwg.Data;
import org.nmws.client.nmwg.Message;
import org.nmws.client.nmwg.Metadata;
import org.nmws.client.nmwg.ObjectFactory;
import org.nmws.client.nmwg.Parameter;
import org.nmws.client.nmwg.ParametersType;
import org.nmws.client.nmwg.SubjectType;
import org.nmws.client.soap.MeasurementPortType;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * A client of an nmws service over SOAP 1.1 or 1.2, on the port type generated from the
 * service's WSDL. It builds the NMWG v2 requests perfSONAR clients send and reads the
 * figures back out of the answers.
 */
public final class NmwsClient {
    public static final String TOPOLOGY = "http://ggf.org/ns/nmwg/topology/2.0/";
    public static final String SELECT = "http://ggf.org/ns/nmwg/ops/select/2.0/";
    public static final String ROUND_TRIP = "http://ggf.org/ns/nmwg/tools/ping/2.0/";
    private static final ObjectFactory NMWG = new ObjectFactory();

    private final MeasurementPortType port;

    private NmwsClient(MeasurementPortType port) {
        this.port = port;
    }

    /** A SOAP 1.1 client of the service at baseUrl (e.g. http://localhost:8080). */
    public static NmwsClient soap11(String baseUrl) {
        return create(baseUrl + "/services/MeasurementService", SOAPBinding.SOAP11HTTP_BINDING);
    }

    /** A SOAP 1.2 client of the service at baseUrl. */
    public static NmwsClient soap12(String baseUrl) {
        return create(baseUrl + "/services/MeasurementService12", SOAPBinding.SOAP12HTTP_BINDING);
    }

    private static NmwsClient create(String address, String binding) {
        JaxWsProxyFactoryBean f = new JaxWsProxyFactoryBean();
        f.setServiceClass(MeasurementPortType.class);
        f.setAddress(address);
        f.setBindingId(binding);
        MeasurementPortType port = f.create(MeasurementPortType.class);
        ((BindingProvider) port).getRequestContext().put("javax.xml.ws.client.receiveTimeout", 180_000);
        return new NmwsClient(port);
    }

    /** This client sending these HTTP headers (credentials: X-Api-Key, Authorization) with every call. */
    public NmwsClient withHeaders(Map<String, String> headers) {
        if (!headers.isEmpty()) {
            Map<String, List<String>> h = new java.util.HashMap<>();
            headers.forEach((k, v) -> h.put(k, List.of(v)));
            ((BindingProvider) port).getRequestContext().put(jakarta.xml.ws.handler.MessageContext.HTTP_REQUEST_HEADERS, h);
        }
        return this;
    }

    public Message submit(Message request) {
        return port.submit(request);
    }

    /**
     * What moving bytes to each destination would cost, ranked (the WSDL's transferCost);
     * with refresh, destinations whose data is older than maxAge are measured first.
     */
    public org.nmws.client.cost.CostResponse transferCost(java.util.List<String> destinations, double bytes,
                                                          java.time.Duration maxAge, boolean refresh) {
        org.nmws.client.cost.CostRequest r = new org.nmws.client.cost.CostRequest();
        r.getDst().addAll(destinations);
        r.setBytes(bytes);
        if (maxAge != null) {
            try {
                r.setMaxAge(javax.xml.datatype.DatatypeFactory.newInstance().newDuration(maxAge.toMillis()));
            } catch (javax.xml.datatype.DatatypeConfigurationException e) {
                throw new IllegalStateException(e);
            }
        }
        if (refresh) {
            r.setRefresh(true);
        }
        return port.transferCost(r);
    }

    public Message echo() {
        Message m = message("EchoRequest");
        Metadata md = metadata("metadata1");
        md.getAny().add(NMWG.createEventType("http://schemas.perfsonar.net/tools/admin/echo/2.0"));
        m.getParametersOrMetadataOrData().add(md);
        m.getParametersOrMetadataOrData().add(data(md.getId()));
        return submit(m);
    }

    /** Asks the service to run a round-trip test to dst now, with NMWG parameters (count, packetSize, ...). */
    public Message roundTrip(String dst, Map<String, String> parameters) {
        return measure(dst, ROUND_TRIP, parameters);
    }

    /** Asks the service to measure a characteristic (dotted name or eventType) to dst now. */
    public Message measure(String dst, String eventType, Map<String, String> parameters) {
        Message m = message("MeasurementRequest");
        Metadata md = metadata("metadata1");
        md.getAny().add(pathSubject(dst));
        md.getAny().add(NMWG.createEventType(eventType));
        md.getAny().add(NMWG.createParameters(parameters("parameters1", parameters)));
        m.getParametersOrMetadataOrData().add(md);
        m.getParametersOrMetadataOrData().add(data(md.getId()));
        return submit(m);
    }

    /** Asks for stored round-trip results to dst between from and to (either may be null). */
    public Message storedRoundTrips(String dst, Instant from, Instant to, boolean raw) {
        Message m = message("SetupDataRequest");
        Metadata md = metadata("metadata1");
        md.getAny().add(pathSubject(dst));
        md.getAny().add(NMWG.createEventType(ROUND_TRIP));
        if (raw) {
            md.getAny().add(NMWG.createParameters(parameters("parameters1", Map.of("raw", "true"))));
        }
        Metadata select = metadata("metadata2");
        Element selectSubject = dom().createElementNS(SELECT, "select:subject");
        selectSubject.setAttribute("id", "subject2");
        selectSubject.setAttribute("metadataIdRef", md.getId());
        select.getAny().add(selectSubject);
        Element params = dom().createElementNS(SELECT, "select:parameters");
        params.setAttribute("id", "parameters2");
        if (from != null) {
            params.appendChild(selectParameter(params.getOwnerDocument(), "startTime", Long.toString(from.getEpochSecond())));
        }
        if (to != null) {
            params.appendChild(selectParameter(params.getOwnerDocument(), "endTime", Long.toString(to.getEpochSecond() + 1)));
        }
        select.getAny().add(params);
        m.getParametersOrMetadataOrData().add(md);
        m.getParametersOrMetadataOrData().add(select);
        m.getParametersOrMetadataOrData().add(data(select.getId()));
        return submit(m);
    }

    /** The eventTypes of a response's metadata, in order (the result or error codes). */
    public static List<String> eventTypes(Message response) {
        List<String> out = new ArrayList<>();
        for (Object o : response.getParametersOrMetadataOrData()) {
            if (o instanceof Metadata md) {
                for (Object c : md.getAny()) {
                    if (c instanceof JAXBElement<?> je && "eventType".equals(je.getName().getLocalPart())) {
                        out.add(String.valueOf(je.getValue()).trim());
                    } else if (c instanceof Element e && "eventType".equals(e.getLocalName())) {
                        out.add(e.getTextContent().trim());
                    }
                }
            }
        }
        return out;
    }

    /** A response read as DOM datums, for figures by name. */
    public record Response(Message message) {
        public List<Element> datums() {
            List<Element> out = new ArrayList<>();
            for (Object o : message.getParametersOrMetadataOrData()) {
                if (o instanceof Data d) {
                    for (Object c : d.getAny()) {
                        if (c instanceof Element e && "datum".equals(e.getLocalName())) {
                            out.add(e);
                        }
                    }
                }
            }
            return out;
        }

        /** A PingER summary figure (minRtt, meanRtt, lossPercent, sent, ...) of the first result, or null. */
        public String figure(String name) {
            for (Element e : datums()) {
                if (name.equals(e.getAttribute("name"))) {
                    return e.getAttribute("value");
                }
            }
            return null;
        }
    }

    /** Conventional prefixes of the NMWG namespaces, for printing. */
    private static final Map<String, String> PREFIXES = Map.ofEntries(
            Map.entry("http://ggf.org/ns/nmwg/base/2.0/", "nmwg"), Map.entry(TOPOLOGY, "nmwgt"),
            Map.entry("http://ggf.org/ns/nmwg/result/2.0/", "nmwgr"), Map.entry(SELECT, "select"),
            Map.entry(ROUND_TRIP, "ping"), Map.entry("http://ggf.org/ns/nmwg/tools/pinger/2.0/", "pinger"),
            Map.entry("http://nmws.org/ns/environment/1.0/", "env"), Map.entry("http://nmws.org/ns/result/1.0/", "nmws"),
            Map.entry("http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921/", "summary"),
            Map.entry("http://ggf.org/ns/nmwg/characteristic/delay/one-way/20070914/", "owd"),
            Map.entry("http://ggf.org/ns/nmwg/tools/iperf/2.0/", "iperf"));

    /**
     * The message as XML text, for printing. Open content comes back as DOM elements that
     * each carry every namespace in scope; they are re-prefixed and declared once at the root.
     */
    public static String toXml(Message m) {
        try {
            Document doc = dom();
            // every type an answer may hold: the environment is bound to classes since the WSDL names it
            JAXBContext.newInstance(Message.class, org.nmws.client.environment.ObjectFactory.class)
                    .createMarshaller().marshal(m, doc);
            Map<String, String> used = new java.util.TreeMap<>();
            tidy(doc.getDocumentElement(), used);
            Element root = doc.getDocumentElement();
            used.forEach((ns, prefix) -> root.setAttributeNS("http://www.w3.org/2000/xmlns/", "xmlns:" + prefix, ns));
            org.w3c.dom.ls.DOMImplementationLS ls = (org.w3c.dom.ls.DOMImplementationLS) doc.getImplementation();
            org.w3c.dom.ls.LSSerializer out = ls.createLSSerializer();
            out.getDomConfig().setParameter("format-pretty-print", true);
            out.getDomConfig().setParameter("xml-declaration", false);
            return out.writeToString(doc);
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot print message: " + e.getMessage(), e);
        }
    }

    private static void tidy(Element e, Map<String, String> used) {
        org.w3c.dom.NamedNodeMap attrs = e.getAttributes();
        for (int i = attrs.getLength() - 1; i >= 0; i--) {
            org.w3c.dom.Node a = attrs.item(i);
            if ("http://www.w3.org/2000/xmlns/".equals(a.getNamespaceURI())) {
                e.removeAttributeNode((org.w3c.dom.Attr) a);
            }
        }
        String ns = e.getNamespaceURI();
        if (ns != null) {
            String prefix = used.computeIfAbsent(ns, k -> PREFIXES.getOrDefault(k, "ns" + (used.size() + 1)));
            e.setPrefix(prefix);
        }
        for (org.w3c.dom.Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element child) {
                tidy(child, used);
            }
        }
    }

    private static Message message(String type) {
        Message m = new Message();
        m.setType(type);
        m.setId("message." + UUID.randomUUID());
        return m;
    }

    private static Metadata metadata(String id) {
        Metadata md = new Metadata();
        md.setId(id);
        return md;
    }

    private static Data data(String metadataId) {
        Data d = new Data();
        d.setId("data." + metadataId);
        d.setMetadataIdRef(metadataId);
        return d;
    }

    private static JAXBElement<SubjectType> pathSubject(String dst) {
        Document doc = dom();
        Element pair = doc.createElementNS(TOPOLOGY, "nmwgt:endPointPair");
        Element d = doc.createElementNS(TOPOLOGY, "nmwgt:dst");
        d.setAttribute("value", dst);
        d.setAttribute("type", dst.matches("[0-9.]+") ? "ipv4" : dst.indexOf(':') >= 0 ? "ipv6" : "hostname");
        pair.appendChild(d);
        SubjectType s = new SubjectType();
        s.setId("subject1");
        s.getAny().add(pair);
        return NMWG.createSubject(s);
    }

    private static ParametersType parameters(String id, Map<String, String> values) {
        ParametersType p = new ParametersType();
        p.setId(id);
        values.forEach((k, v) -> {
            Parameter param = new Parameter();
            param.setName(k);
            param.setValue(v);
            p.getParameter().add(param);
        });
        return p;
    }

    private static Element selectParameter(Document doc, String name, String value) {
        Element p = doc.createElementNS("http://ggf.org/ns/nmwg/base/2.0/", "nmwg:parameter");
        p.setAttribute("name", name);
        p.setTextContent(value);
        return p;
    }

    private static Document dom() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            return f.newDocumentBuilder().newDocument();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }
}
