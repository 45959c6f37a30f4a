package org.nmws.client;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBElement;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import jakarta.xml.ws.BindingProvider;
import jakarta.xml.ws.soap.SOAPBinding;
import java.io.StringWriter;
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

    public Message submit(Message request) {
        return port.submit(request);
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
        Message m = message("MeasurementRequest");
        Metadata md = metadata("metadata1");
        md.getAny().add(pathSubject(dst));
        md.getAny().add(NMWG.createEventType(ROUND_TRIP));
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

    /** The message as XML text, for printing. */
    public static String toXml(Message m) {
        try {
            Marshaller marshaller = JAXBContext.newInstance(Message.class).createMarshaller();
            marshaller.setProperty(Marshaller.JAXB_FORMATTED_OUTPUT, true);
            StringWriter w = new StringWriter();
            marshaller.marshal(m, w);
            return w.toString();
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot print message: " + e.getMessage(), e);
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
