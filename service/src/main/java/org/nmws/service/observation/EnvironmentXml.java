package org.nmws.service.observation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.XMLStreamWriter;
import javax.xml.transform.dom.DOMResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The one codec of an observation's env:environment (nmws-environment.xsd), both ways: every
 * answer (NMWG v2, v1, XML-RPC's NMWG string), the archive's export and its import write and
 * read it here, so a field added to {@link Environment} is added once and survives every
 * path. Written by hand over StAX because the environment travels inside three different
 * documents (a JAXB message, a streamed export, a v1 DOM) and StAX is the one API all of them
 * can take a fragment from.
 */
public final class EnvironmentXml {
    public static final String NS = Namespaces.ENVIRONMENT;
    private static final XMLOutputFactory OUTPUT = XMLOutputFactory.newFactory();
    private static final DocumentBuilderFactory DOCUMENTS = DocumentBuilderFactory.newInstance();

    static {
        DOCUMENTS.setNamespaceAware(true);
    }

    private EnvironmentXml() {
    }

    /** What an env:environment carries beside the hosts: who measured, when, with what. */
    public record Read(String measurementPoint, Instant start, Instant end, Environment environment, String tool,
                       String toolVersion) {
    }

    /** Writes the observation's env:environment (its prefix bound by the caller or here). */
    public static void write(XMLStreamWriter w, Observation o) throws XMLStreamException {
        boolean bound = NS.equals(w.getNamespaceContext().getNamespaceURI("env"));
        w.writeStartElement("env", "environment", NS);
        if (!bound) {
            w.writeNamespace("env", NS);
        }
        optional(w, "measurementPoint", o.measurementPoint());
        optional(w, "startTime", o.start());
        optional(w, "endTime", o.end());
        Environment env = o.environment();
        for (Environment.Host h : new Environment.Host[] {env.src(), env.dst()}) {
            if (h != null) {
                host(w, h);
            }
        }
        if (o.tool() != null) {
            w.writeEmptyElement("env", "tool", NS);
            w.writeAttribute("name", o.tool());
            optional(w, "version", o.toolVersion());
        }
        if (env.route() != null) {
            w.writeStartElement("env", "route", NS);
            for (Environment.RouteHop h : env.route()) {
                w.writeEmptyElement("env", "hop", NS);
                w.writeAttribute("ttl", Integer.toString(h.ttl()));
                optional(w, "address", h.address());
                optional(w, "name", h.name());
            }
            w.writeEndElement();
        }
        w.writeEndElement();
    }

    /** The observation's env:environment as a DOM element of a new document (for DOM and JAXB answers). */
    public static Element element(Observation o) {
        try {
            Document doc;
            synchronized (DOCUMENTS) { // a factory is not promised to be thread-safe; a builder per answer is
                doc = DOCUMENTS.newDocumentBuilder().newDocument();
            }
            XMLStreamWriter w = OUTPUT.createXMLStreamWriter(new DOMResult(doc));
            write(w, o);
            w.close();
            return doc.getDocumentElement();
        } catch (XMLStreamException | ParserConfigurationException e) {
            throw new IllegalStateException("cannot write an environment: " + e.getMessage(), e);
        }
    }

    private static void host(XMLStreamWriter w, Environment.Host h) throws XMLStreamException {
        w.writeStartElement("env", "host", NS);
        w.writeAttribute("role", h.role() == null ? "src" : h.role());
        optional(w, "name", h.name());
        optional(w, "address", h.address());
        optional(w, "kernel", h.kernel());
        optional(w, "cpuModel", h.cpuModel());
        optional(w, "cpus", h.cpus());
        if (h.nic() != null) {
            w.writeEmptyElement("env", "interface", NS);
            optional(w, "name", h.nic().name());
            optional(w, "driver", h.nic().driver());
            optional(w, "speedMbps", h.nic().speedMbps());
            optional(w, "mtu", h.nic().mtu());
        }
        if (h.clock() != null) {
            Environment.Clock c = h.clock();
            w.writeEmptyElement("env", "clock", NS);
            optional(w, "source", c.source());
            optional(w, "synchronized", c.synchronised());
            optional(w, "maxErrorUs", c.maxErrorUs());
            optional(w, "estErrorUs", c.estErrorUs());
            optional(w, "state", c.state());
            optional(w, "reference", c.reference());
            optional(w, "errorNs", c.errorNs());
            optional(w, "ptpPortState", c.ptpPortState());
            optional(w, "ptpGrandmaster", c.ptpGrandmaster());
            optional(w, "ptpOffsetNs", c.ptpOffsetNs());
            optional(w, "ptpPathDelayNs", c.ptpPathDelayNs());
            optional(w, "stepNs", c.stepNs());
        }
        if (h.load() != null) {
            w.writeEmptyElement("env", "load", NS);
            optional(w, "cpuBusyPercent", h.load().cpuBusyPercent());
            optional(w, "interrupts", h.load().interrupts());
            optional(w, "udpRcvbufErrors", h.load().udpRcvbufErrors());
        }
        w.writeEndElement();
    }

    private static void optional(XMLStreamWriter w, String name, Object value) throws XMLStreamException {
        if (value != null) {
            w.writeAttribute(name, value.toString());
        }
    }

    /**
     * Reads an env:environment, the reader on its start tag, up to and including its end tag.
     * Unknown elements inside are skipped (a newer writer may add some).
     *
     * @throws IllegalArgumentException for a value that is not of its attribute's type
     */
    public static Read read(XMLStreamReader r) throws XMLStreamException {
        String point = r.getAttributeValue(null, "measurementPoint");
        Instant start = instant(r.getAttributeValue(null, "startTime"));
        Instant end = instant(r.getAttributeValue(null, "endTime"));
        Environment.Host src = null;
        Environment.Host dst = null;
        String tool = null;
        String version = null;
        List<Environment.RouteHop> route = null;
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
            String name = r.getLocalName();
            if (!NS.equals(r.getNamespaceURI())) {
                skip(r);
            } else if (name.equals("host")) {
                Environment.Host h = readHost(r);
                if ("dst".equals(h.role())) {
                    dst = h;
                } else {
                    src = h;
                }
            } else if (name.equals("tool")) {
                tool = r.getAttributeValue(null, "name");
                version = r.getAttributeValue(null, "version");
                skip(r);
            } else if (name.equals("route")) {
                route = new ArrayList<>();
                while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
                    if (route.size() >= 255) {
                        throw new IllegalArgumentException("an env:route holds more than 255 hops");
                    }
                    route.add(new Environment.RouteHop(Integer.parseInt(required(r, "ttl")),
                            r.getAttributeValue(null, "address"), r.getAttributeValue(null, "name")));
                    skip(r);
                }
            } else {
                skip(r);
            }
        }
        return new Read(point, start, end, new Environment(src, dst, route), tool, version);
    }

    /** Reads env:host up to and including its end tag. */
    private static Environment.Host readHost(XMLStreamReader r) throws XMLStreamException {
        String role = r.getAttributeValue(null, "role");
        String name = r.getAttributeValue(null, "name");
        String address = r.getAttributeValue(null, "address");
        String kernel = r.getAttributeValue(null, "kernel");
        String cpuModel = r.getAttributeValue(null, "cpuModel");
        Integer cpus = integer(r.getAttributeValue(null, "cpus"));
        Environment.Nic nic = null;
        Environment.Clock clock = null;
        Environment.Load load = null;
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
            switch (r.getLocalName()) {
                case "interface" -> nic = new Environment.Nic(r.getAttributeValue(null, "name"),
                        r.getAttributeValue(null, "driver"), number(r.getAttributeValue(null, "speedMbps")),
                        integer(r.getAttributeValue(null, "mtu")));
                case "clock" -> {
                    String sync = r.getAttributeValue(null, "synchronized");
                    clock = new Environment.Clock(r.getAttributeValue(null, "source"), sync == null ? null : Boolean.valueOf(sync),
                            number(r.getAttributeValue(null, "maxErrorUs")), number(r.getAttributeValue(null, "estErrorUs")),
                            r.getAttributeValue(null, "state"), r.getAttributeValue(null, "reference"),
                            number(r.getAttributeValue(null, "errorNs")), r.getAttributeValue(null, "ptpPortState"),
                            r.getAttributeValue(null, "ptpGrandmaster"), number(r.getAttributeValue(null, "ptpOffsetNs")),
                            number(r.getAttributeValue(null, "ptpPathDelayNs")), number(r.getAttributeValue(null, "stepNs")));
                }
                case "load" -> {
                    String cpu = r.getAttributeValue(null, "cpuBusyPercent");
                    load = new Environment.Load(cpu == null ? null : Double.valueOf(cpu),
                            number(r.getAttributeValue(null, "interrupts")), number(r.getAttributeValue(null, "udpRcvbufErrors")));
                }
                default -> {
                    // a newer writer's element: skipped
                }
            }
            skip(r);
        }
        return new Environment.Host(role == null ? "src" : role, name, address, kernel, cpuModel, cpus, nic, clock, load);
    }

    private static String required(XMLStreamReader r, String attribute) {
        String v = r.getAttributeValue(null, attribute);
        if (v == null) {
            throw new IllegalArgumentException("env:" + r.getLocalName() + " needs " + attribute);
        }
        return v;
    }

    /** Skips from a start tag to its matching end tag. */
    private static void skip(XMLStreamReader r) throws XMLStreamException {
        int depth = 1;
        while (depth > 0) {
            int ev = r.next();
            if (ev == XMLStreamConstants.START_ELEMENT) {
                depth++;
            } else if (ev == XMLStreamConstants.END_ELEMENT) {
                depth--;
            }
        }
    }

    private static Instant instant(String s) {
        return s == null || s.isBlank() ? null : Instant.parse(s.trim());
    }

    private static Integer integer(String s) {
        return s == null ? null : Integer.valueOf(s.trim());
    }

    private static Long number(String s) {
        return s == null ? null : Long.valueOf(s.trim());
    }
}
