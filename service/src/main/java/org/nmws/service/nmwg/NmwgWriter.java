package org.nmws.service.nmwg;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import javax.xml.datatype.DatatypeConfigurationException;
import javax.xml.datatype.DatatypeFactory;
import javax.xml.datatype.XMLGregorianCalendar;
import javax.xml.parsers.ParserConfigurationException;
import org.nmws.schema.environment.ClockType;
import org.nmws.schema.environment.HostType;
import org.nmws.schema.environment.InterfaceType;
import org.nmws.schema.environment.ToolType;
import org.nmws.schema.nmwg.Data;
import org.nmws.schema.nmwg.Key;
import org.nmws.schema.nmwg.Message;
import org.nmws.schema.nmwg.Metadata;
import org.nmws.schema.nmwg.ObjectFactory;
import org.nmws.schema.nmwg.Parameter;
import org.nmws.schema.nmwg.ParametersType;
import org.nmws.schema.nmwg.SubjectType;
import org.nmws.schema.topology.EndPointPair;
import org.nmws.schema.topology.EndPointType;
import org.nmws.service.measure.Endpoint;
import org.nmws.service.measure.Environment;
import org.nmws.service.measure.Observation;
import org.nmws.service.measure.PathSubject;
import org.w3c.dom.Document;

/**
 * Builds NMWG v2 response messages with the JAXB classes generated from schema/, so what
 * is written is what the XSDs define. One writer per response (it numbers ids).
 */
public final class NmwgWriter {
    private static final JAXBContext CONTEXT = createContext();
    private static final ObjectFactory NMWG = new ObjectFactory();
    private static final DatatypeFactory DATATYPES = datatypeFactory();

    private final Message message = new Message();
    private int nextId = 1;

    public NmwgWriter(String type, String messageIdRef) {
        message.setType(type);
        message.setId("message." + Long.toHexString(System.nanoTime()));
        message.setMessageIdRef(messageIdRef);
    }

    public Message message() {
        return message;
    }

    /** A metadata/data pair whose metadata carries only an eventType (error or success code). */
    public void status(String metadataIdRef, String eventType, String text) {
        Metadata md = metadata(metadataIdRef);
        md.getAny().add(NMWG.createEventType(eventType));
        Data data = data(md.getId());
        org.nmws.schema.result.Datum datum = new org.nmws.schema.result.Datum();
        datum.getContent().add(text);
        data.getAny().add(datum);
    }

    /** A pair saying the store holds nothing that matches; the eventType echoes the request. */
    public void noData(String metadataIdRef, String eventType, PathSubject subject, String text) {
        Metadata md = metadata(metadataIdRef);
        md.getAny().add(subject(subject, md.getId()));
        md.getAny().add(NMWG.createEventType(eventType));
        Data data = data(md.getId());
        org.nmws.schema.result.Datum datum = new org.nmws.schema.result.Datum();
        datum.setType("noData");
        datum.getContent().add(text);
        data.getAny().add(datum);
    }

    /** An observation in the form its clients read, chosen by the test that took it. */
    public void observation(String metadataIdRef, String eventType, Observation o, boolean raw) {
        switch (o.test()) {
            case ROUND_TRIP -> roundTrip(metadataIdRef, eventType, o, raw);
        }
    }

    /**
     * A round-trip observation: metadata with subject, eventType, every test parameter, the
     * archive key and the observation environment; data with the PingER summary datums and,
     * when asked, one ping datum per frame.
     */
    private void roundTrip(String metadataIdRef, String eventType, Observation o, boolean raw) {
        Metadata md = metadata(metadataIdRef);
        md.getAny().add(subject(o.subject(), md.getId()));
        md.getAny().add(NMWG.createEventType(eventType));
        md.getAny().add(NMWG.createParameters(parameters(o.parameters(), "parameters." + md.getId())));
        md.getAny().add(key(o.id()));
        md.getAny().add(environment(o));
        Data data = data(md.getId());
        String time = unixTime(o.start());
        for (Map.Entry<String, Double> e : o.summary().entrySet()) {
            org.nmws.schema.pinger.Datum d = new org.nmws.schema.pinger.Datum();
            d.setName(e.getKey());
            d.setValue(number(e.getValue()));
            String units = units(e.getKey());
            if (units != null) {
                d.setValueUnits(units);
            }
            d.setTimeType("unix");
            d.setTimeValue(time);
            data.getAny().add(d);
        }
        if (raw) {
            for (Observation.Frame f : o.frames()) {
                org.nmws.schema.ping.Datum d = new org.nmws.schema.ping.Datum();
                d.setSeqNum(f.seq());
                if (!f.lost()) {
                    d.setValue(f.valueNanos() / 1e6);
                    d.setValueUnits("ms");
                    if (f.ttl() >= 0) {
                        d.setTtl(f.ttl());
                    }
                }
                d.setNumBytes(f.bytes());
                d.setTimeType("unix");
                d.setTimeValue(unixTime(f.sendEpochNanos()));
                data.getAny().add(d);
            }
        }
    }

    public Document toDocument() {
        try {
            Document doc = SafeXml.hardenedFactory().newDocumentBuilder().newDocument();
            marshaller().marshal(message, doc);
            return doc;
        } catch (JAXBException | ParserConfigurationException e) {
            throw new IllegalStateException("cannot write NMWG response: " + e.getMessage(), e);
        }
    }

    public byte[] toBytes() {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
            marshaller().marshal(message, out);
            return out.toByteArray();
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot write NMWG response: " + e.getMessage(), e);
        }
    }

    private Metadata metadata(String metadataIdRef) {
        Metadata md = new Metadata();
        md.setId("metadata." + nextId++);
        md.setMetadataIdRef(metadataIdRef);
        message.getParametersOrMetadataOrData().add(md);
        return md;
    }

    private Data data(String metadataId) {
        Data d = new Data();
        d.setId("data." + nextId++);
        d.setMetadataIdRef(metadataId);
        message.getParametersOrMetadataOrData().add(d);
        return d;
    }

    private static Object subject(PathSubject s, String metadataId) {
        EndPointPair pair = new EndPointPair();
        if (s.src() != null) {
            pair.setSrc(endPoint(s.src()));
        }
        pair.setDst(endPoint(s.dst()));
        SubjectType subject = new SubjectType();
        subject.setId("subject." + metadataId);
        subject.getAny().add(pair);
        return NMWG.createSubject(subject);
    }

    private static EndPointType endPoint(Endpoint e) {
        EndPointType t = new EndPointType();
        t.setType(e.type());
        t.setValueAttribute(e.host());
        return t;
    }

    private static ParametersType parameters(Map<String, String> params, String id) {
        ParametersType p = new ParametersType();
        p.setId(id);
        for (Map.Entry<String, String> e : params.entrySet()) {
            Parameter param = new Parameter();
            param.setName(e.getKey());
            param.setValue(e.getValue());
            p.getParameter().add(param);
        }
        return p;
    }

    private static Key key(long observationId) {
        Key key = new Key();
        key.setId("key." + observationId);
        key.getParameters().add(parameters(Map.of("maKey", Long.toString(observationId)), "keyParameters." + observationId));
        return key;
    }

    private static org.nmws.schema.environment.Environment environment(Observation o) {
        org.nmws.schema.environment.Environment env = new org.nmws.schema.environment.Environment();
        env.setMeasurementPoint(o.measurementPoint());
        env.setStartTime(dateTime(o.start()));
        env.setEndTime(dateTime(o.end()));
        if (o.environment().src() != null) {
            env.getHost().add(host(o.environment().src()));
        }
        if (o.environment().dst() != null) {
            env.getHost().add(host(o.environment().dst()));
        }
        ToolType tool = new ToolType();
        tool.setName(o.tool());
        tool.setVersion(o.toolVersion());
        env.setTool(tool);
        return env;
    }

    private static HostType host(Environment.Host h) {
        HostType t = new HostType();
        t.setRole(h.role());
        t.setName(h.name());
        t.setAddress(h.address());
        t.setKernel(h.kernel());
        t.setCpuModel(h.cpuModel());
        t.setCpus(h.cpus());
        if (h.nic() != null) {
            InterfaceType nic = new InterfaceType();
            nic.setName(h.nic().name());
            nic.setDriver(h.nic().driver());
            nic.setSpeedMbps(h.nic().speedMbps());
            nic.setMtu(h.nic().mtu());
            t.setInterface(nic);
        }
        if (h.clock() != null) {
            ClockType c = new ClockType();
            c.setSource(h.clock().source());
            c.setSynchronized(h.clock().synchronised());
            c.setMaxErrorUs(h.clock().maxErrorUs());
            c.setEstErrorUs(h.clock().estErrorUs());
            c.setState(h.clock().state());
            t.setClock(c);
        }
        return t;
    }

    /** Units of the PingER summary datums: RTT and IPD figures are milliseconds. */
    private static String units(String datumName) {
        String n = datumName.toLowerCase(Locale.ROOT);
        if (n.endsWith("rtt") || n.endsWith("ipd")) {
            return "ms";
        }
        return n.endsWith("percent") ? "%" : null;
    }

    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "");
    }

    static String unixTime(Instant t) {
        return unixTime(t.getEpochSecond() * 1_000_000_000L + t.getNano());
    }

    static String unixTime(long epochNanos) {
        return String.format(Locale.ROOT, "%d.%09d", Math.floorDiv(epochNanos, 1_000_000_000L),
                Math.floorMod(epochNanos, 1_000_000_000L));
    }

    private static XMLGregorianCalendar dateTime(Instant t) {
        return DATATYPES.newXMLGregorianCalendar(t.toString());
    }

    private static Marshaller marshaller() throws JAXBException {
        Marshaller m = CONTEXT.createMarshaller();
        m.setProperty(Marshaller.JAXB_ENCODING, "UTF-8");
        return m;
    }

    private static JAXBContext createContext() {
        try {
            return JAXBContext.newInstance("org.nmws.schema.nmwg:org.nmws.schema.topology:org.nmws.schema.result"
                    + ":org.nmws.schema.time:org.nmws.schema.select:org.nmws.schema.ping:org.nmws.schema.pinger"
                    + ":org.nmws.schema.environment", NmwgWriter.class.getClassLoader());
        } catch (JAXBException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static DatatypeFactory datatypeFactory() {
        try {
            return DatatypeFactory.newInstance();
        } catch (DatatypeConfigurationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
