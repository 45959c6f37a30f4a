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
import org.nmws.schema.environment.LoadType;
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
import org.nmws.service.archive.Series;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.w3c.dom.Document;

/**
 * Builds NMWG v2 response messages with the JAXB classes generated from schema/, so what
 * is written is what the XSDs define. One writer per response (it numbers ids).
 */
public final class NmwgWriter {
    private static final JAXBContext CONTEXT = createContext();
    private static final ObjectFactory NMWG = new ObjectFactory();
    private static final org.nmws.schema.select.ObjectFactory SELECT = new org.nmws.schema.select.ObjectFactory();
    private static final DatatypeFactory DATATYPES = datatypeFactory();
    private static final NmwgPrefixes PREFIXES = new NmwgPrefixes();
    /** Builders are not thread-safe, and a factory lookup per response showed in the SOAP benchmark. */
    private static final ThreadLocal<javax.xml.parsers.DocumentBuilder> BUILDER = ThreadLocal.withInitial(() -> {
        try {
            return SafeXml.hardenedFactory().newDocumentBuilder();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    });

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

    /**
     * A pair saying the store holds nothing that matches; subject and eventType echo the
     * request and are left out when it named none (a MetadataKeyRequest without a filter).
     */
    public void noData(String metadataIdRef, String eventType, PathSubject subject, String text) {
        Metadata md = metadata(metadataIdRef);
        if (subject != null) {
            md.getAny().add(subject(subject, md.getId()));
        }
        if (eventType != null) {
            md.getAny().add(NMWG.createEventType(eventType));
        }
        Data data = data(md.getId());
        org.nmws.schema.result.Datum datum = new org.nmws.schema.result.Datum();
        datum.setType("noData");
        datum.getContent().add(text);
        data.getAny().add(datum);
    }

    /** An observation in the form its clients read, chosen by the test that took it. */
    public void observation(String metadataIdRef, String eventType, Observation o, boolean raw) {
        Data data = data(resultMetadata(metadataIdRef, eventType, o, Long.toString(o.id())).getId());
        datums(data, o, raw);
    }

    /**
     * Stored results as MAs answer them: one metadata per series (same test, path and
     * parameters; its environment that of the latest result, its key the series' maKey) and
     * one data holding every result's datums, each stamped with its time.
     */
    public void stored(String metadataIdRef, String eventType, java.util.List<Observation> found, boolean raw) {
        Map<java.util.List<Object>, java.util.List<Observation>> series = new java.util.LinkedHashMap<>();
        for (Observation o : found) {
            series.computeIfAbsent(java.util.List.of(o.test(), o.subject(), o.parameters()), k -> new java.util.ArrayList<>()).add(o);
        }
        for (java.util.List<Observation> group : series.values()) {
            Observation latest = group.get(group.size() - 1);
            String maKey = SeriesKeys.encode(new org.nmws.service.archive.Series(latest.measurementPoint(), latest.test(),
                    latest.subject(), latest.parameters(), group.size(), group.get(0).start(), latest.start()));
            Data data = data(resultMetadata(metadataIdRef, eventType, latest, maKey).getId());
            for (Observation o : group) {
                datums(data, o, raw);
            }
        }
    }

    /** An observation's datums in the form its clients read, chosen by the test that took it. */
    private void datums(Data data, Observation o, boolean raw) {
        switch (o.test()) {
            case ROUND_TRIP -> roundTrip(data, o, raw);
            case UDP_STREAM -> stream(data, o, raw);
            case LATENCY_SCAN, CAPACITY, HOP_CAPACITY, AVAILABLE -> figures(data, o);
            case TCP_STREAM -> tcp(data, o, raw);
            case HOP_LIST -> hops(data, o);
            case UTILIZATION -> utilization(data, o);
        }
    }

    private static final javax.xml.namespace.QName DIRECTION = new javax.xml.namespace.QName("http://nmws.org/ns/result/1.0/", "direction", "nmws");

    /**
     * Interface counters as SNMP MAs report them: one nmwg:datum per interval and direction
     * with the rate in bytes per second (nmws:direction says in or out), then the figures.
     */
    private void utilization(Data data, Observation o) {
        for (Observation.Frame f : o.frames()) {
            org.nmws.schema.nmwg.Datum d = new org.nmws.schema.nmwg.Datum();
            d.setTimeType("unix");
            d.setTimeValue(unixTime(f.sendEpochNanos()));
            d.setValue(significant(f.bytes() * 1e9 / f.valueNanos()));
            d.setValueUnits("Bps");
            d.getOtherAttributes().put(DIRECTION, f.ttl() == 0 ? "out" : "in");
            data.getAny().add(d);
        }
        figures(data, o);
    }

    /**
     * A TCP test: the iperf datum bwctl clients read (throughput in bit/s over the test),
     * one per time-series bin when raw (interval relative to the start, all streams), and
     * every further figure.
     */
    private void tcp(Data data, Observation o, boolean raw) {
        org.nmws.schema.iperf.Datum total = new org.nmws.schema.iperf.Datum();
        total.setTimeType("unix");
        total.setTimeValue(unixTime(o.start()));
        Double mbps = o.summary().get("throughputMbps");
        if (mbps != null) {
            total.setThroughput(significant(mbps * 1e6));
        }
        data.getAny().add(total);
        if (raw) {
            Map<Long, long[]> bins = new java.util.TreeMap<>(); // bin start -> {bytes over streams, bin length}
            for (Observation.Frame f : o.frames()) {
                long[] b = bins.computeIfAbsent(f.sendEpochNanos(), k -> new long[2]);
                b[0] += f.bytes();
                b[1] = f.valueNanos();
            }
            long first = bins.isEmpty() ? 0 : bins.keySet().iterator().next();
            for (Map.Entry<Long, long[]> e : bins.entrySet()) {
                org.nmws.schema.iperf.Datum d = new org.nmws.schema.iperf.Datum();
                d.setTimeType("unix");
                d.setTimeValue(unixTime(e.getKey()));
                double from = (e.getKey() - first) / 1e9;
                d.setInterval(String.format(Locale.ROOT, "%.3f-%.3f", from, from + e.getValue()[1] / 1e9));
                d.setThroughput(significant(e.getValue()[0] * 8e9 / e.getValue()[1]));
                data.getAny().add(d);
            }
            tcpInfo(data, o);
        }
        figures(data, o);
    }

    /** The raw TCP_INFO samples of a TCP test, one element each. */
    private static void tcpInfo(Data data, Observation o) {
        Map<String, long[]> s = o.samples();
        long[] offset = s.get("offsetNs");
        if (offset == null) {
            return;
        }
        long start = o.start().getEpochSecond() * 1_000_000_000L + o.start().getNano();
        for (int i = 0; i < offset.length; i++) {
            org.nmws.schema.figure.TcpInfo t = new org.nmws.schema.figure.TcpInfo();
            t.setTimeType("unix");
            t.setTimeValue(unixTime(start + offset[i]));
            t.setStream((int) at(s, "stream", i));
            t.setCwndSegments(at(s, "cwndSegments", i));
            t.setMssBytes(at(s, "mssBytes", i));
            t.setSrttUs(at(s, "srttUs", i));
            t.setRttvarUs(at(s, "rttvarUs", i));
            t.setRetransmits(at(s, "retransmits", i));
            t.setTotalRetrans(at(s, "totalRetrans", i));
            t.setPacingRateBytesPerSecond(at(s, "pacingRateBytesPerSecond", i));
            t.setDeliveryRateBytesPerSecond(at(s, "deliveryRateBytesPerSecond", i));
            t.setBytesAcked(at(s, "bytesAcked", i));
            data.getAny().add(t);
        }
    }

    /** Column c at row i; 0 when a stored series lacks the column or the row. */
    private static long at(Map<String, long[]> s, String c, int i) {
        long[] v = s.get(c);
        return v != null && i < v.length ? v[i] : 0;
    }

    /** A hop list: one traceroute datum per probe, the hop from the route in the environment. */
    private void hops(Data data, Observation o) {
        Map<Integer, Environment.RouteHop> route = new java.util.HashMap<>();
        if (o.environment().route() != null) {
            for (Environment.RouteHop h : o.environment().route()) {
                route.put(h.ttl(), h);
            }
        }
        Map<Integer, Integer> queries = new java.util.HashMap<>();
        for (Observation.Frame f : o.frames()) {
            org.nmws.schema.traceroute.Datum d = new org.nmws.schema.traceroute.Datum();
            d.setTtl(f.ttl());
            d.setQueryNum(queries.merge(f.ttl(), 1, Integer::sum));
            Environment.RouteHop hop = route.get(f.ttl());
            if (hop != null && hop.address() != null && !f.lost()) {
                d.setHop(hop.address());
                d.setHopName(hop.name());
            }
            if (!f.lost()) {
                d.setValue(f.valueNanos() / 1e6);
                d.setValueUnits("ms");
            }
            d.setNumBytes(Math.toIntExact(f.bytes())); // probe frames: at most 64 KiB
            d.setTimeType("unix");
            d.setTimeValue(unixTime(f.sendEpochNanos()));
            data.getAny().add(d);
        }
        figures(data, o);
    }

    /** One nmws figure per summary entry, with units from its name and the result's time. */
    private static void figures(Data data, Observation o) {
        String time = unixTime(o.start());
        for (Map.Entry<String, Double> e : o.summary().entrySet()) {
            org.nmws.schema.figure.Figure fig = new org.nmws.schema.figure.Figure();
            fig.setName(e.getKey());
            fig.setValue(significant(e.getValue()));
            String units = figureUnits(e.getKey());
            if (units != null) {
                fig.setUnits(units);
            }
            fig.setTimeType("unix");
            fig.setTimeValue(time);
            data.getAny().add(fig);
        }
    }

    /** Metadata of a result: subject, eventType, every parameter, archive key and environment. */
    private Metadata resultMetadata(String metadataIdRef, String eventType, Observation o, String maKey) {
        Metadata md = metadata(metadataIdRef);
        md.getAny().add(subject(o.subject(), md.getId()));
        md.getAny().add(NMWG.createEventType(eventType));
        md.getAny().add(NMWG.createParameters(parameters(o.parameters(), "parameters." + md.getId())));
        md.getAny().add(key(maKey, md.getId()));
        md.getAny().add(environment(o));
        return md;
    }

    /**
     * A UDP stream: the owamp summary datum (delays in seconds, as owamp clients read them),
     * the iperf datum (throughput in bits/s, jitter, loss) as bwctl clients read it, one
     * nmws figure per further figure, and one owd datum per frame when asked.
     */
    private static Long count(Map<String, Double> figures, String name) {
        Double v = figures.get(name);
        return v == null ? null : v.longValue();
    }

    private void stream(Data data, Observation o, boolean raw) {
        Map<String, Double> f = o.summary();
        org.nmws.schema.owamp.summary.Datum summary = new org.nmws.schema.owamp.summary.Datum();
        summary.setTimeType("unix");
        summary.setStartTime(unixTime(o.start()));
        summary.setEndTime(unixTime(o.end()));
        // An imported observation may lack figures: an absent one is left out, never made up.
        summary.setSent(count(f, "sent"));
        summary.setLoss(count(f, "lost"));
        summary.setDuplicates(count(f, "duplicates"));
        if (f.containsKey("minDelayMs") && f.containsKey("maxDelayMs")) {
            summary.setMinDelay(significant(f.get("minDelayMs") / 1e3));
            summary.setMaxDelay(significant(f.get("maxDelayMs") / 1e3));
        }
        Environment.Clock clock = o.environment().src() == null ? null : o.environment().src().clock();
        if (clock != null && clock.maxErrorUs() != null) {
            summary.setMaxError(clock.maxErrorUs() / 1e6);
        }
        data.getAny().add(summary);
        org.nmws.schema.iperf.Datum iperf = new org.nmws.schema.iperf.Datum();
        iperf.setTimeType("unix");
        iperf.setTimeValue(unixTime(o.start()));
        if (f.containsKey("receiverUserMbps")) {
            iperf.setThroughput(significant(f.get("receiverUserMbps") * 1e6));
        }
        if (f.containsKey("meanAbsIpdvMs")) {
            iperf.setJitter(significant(f.get("meanAbsIpdvMs")));
        }
        iperf.setLost(count(f, "lost"));
        iperf.setSent(count(f, "sent"));
        data.getAny().add(iperf);
        figures(data, o);
        if (raw) {
            for (Observation.Frame fr : o.frames()) {
                org.nmws.schema.owamp.owd.Datum d = new org.nmws.schema.owamp.owd.Datum();
                d.setSequenceNumber(fr.seq());
                d.setTimeType("unix");
                d.setSendTime(unixTime(fr.sendEpochNanos()));
                if (!fr.lost()) {
                    d.setReceiveTime(unixTime(fr.sendEpochNanos() + fr.valueNanos()));
                }
                d.setNumBytes(Math.toIntExact(fr.bytes()));
                data.getAny().add(d);
            }
        }
    }

    /** Nine significant digits for measured values (what the clocks can tell, without binary noise such as 3.8999999999999997E-7); whole counts stay exact. */
    static double significant(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0 || v == Math.rint(v) && Math.abs(v) < 1e15) {
            return v; // counts stay exact
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(9)).doubleValue();
    }

    /** Units from a figure's name suffix (the convention of measure/StreamObservations). */
    static String figureUnits(String name) {
        if (name.endsWith("UsPerByte")) {
            return "us/byte";
        } else if (name.endsWith("Ms")) {
            return "ms";
        } else if (name.endsWith("Us")) {
            return "us";
        } else if (name.endsWith("Mbps")) {
            return "Mbit/s";
        } else if (name.endsWith("Percent")) {
            return "%";
        } else if (name.endsWith("Bytes") || name.endsWith("BytesByDelay")) {
            return "bytes";
        } else if (name.endsWith("Ratio") || name.endsWith("Distance")) {
            return "ratio";
        }
        return null;
    }

    /**
     * A round-trip observation: metadata with subject, eventType, every test parameter, the
     * archive key and the observation environment; data with the PingER summary datums and,
     * when asked, one ping datum per frame.
     */
    private void roundTrip(Data data, Observation o, boolean raw) {
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

    /**
     * Consolidated stored data: the metadata echoes the subject, eventType, the select
     * parameters that shaped it and the series key when there is one; the data holds one
     * set of PingER-style figures per bucket, stamped with the bucket's start, plus how many
     * observations the bucket consolidates.
     */
    void consolidated(String metadataIdRef, String eventType, PathSubject subject, String maKey, Select select,
                      java.util.List<Consolidation.Bucket> buckets) {
        Metadata md = metadata(metadataIdRef);
        if (subject != null) { // null: everything measured from a host
            md.getAny().add(subject(subject, md.getId()));
        }
        md.getAny().add(NMWG.createEventType(eventType));
        Map<String, String> sel = new java.util.LinkedHashMap<>();
        if (select.from() != null) {
            sel.put("startTime", unixTime(select.from()));
        }
        if (select.to() != null) {
            sel.put("endTime", unixTime(select.to()));
        }
        sel.put("consolidationFunction", select.function().wireName());
        if (select.resolutionSeconds() > 0) {
            sel.put("resolution", Long.toString(select.resolutionSeconds()));
        }
        md.getAny().add(SELECT.createParameters(parameters(sel, "select." + md.getId())));
        if (maKey != null) {
            md.getAny().add(key(maKey, md.getId()));
        }
        Data data = data(md.getId());
        for (Consolidation.Bucket b : buckets) {
            String time = unixTime(b.start());
            data.getAny().add(figure("observations", b.observations(), time));
            for (Map.Entry<String, Double> e : b.figures().entrySet()) {
                data.getAny().add(figure(e.getKey(), e.getValue(), time));
            }
        }
    }

    /**
     * One stored series (MetadataKeyRequest, DataInfoRequest): the metadata says what it is
     * (subject, eventTypes, test parameters); the data carries the maKey to send back, and for
     * DataInfoRequest how many observations it holds and the time they span.
     */
    public void series(String metadataIdRef, java.util.List<String> eventTypes, Series s, String maKey, boolean dataInfo) {
        Metadata md = metadata(metadataIdRef);
        md.getAny().add(subject(s.subject(), md.getId()));
        for (String et : eventTypes) {
            md.getAny().add(NMWG.createEventType(et));
        }
        md.getAny().add(NMWG.createParameters(parameters(s.parameters(), "parameters." + md.getId())));
        Data data = data(md.getId());
        data.getAny().add(key(maKey, data.getId()));
        if (dataInfo) {
            org.nmws.schema.time.Time t = new org.nmws.schema.time.Time();
            t.setType("unix");
            t.setStart(timeStamp(s.first()));
            t.setEnd(timeStamp(s.last()));
            data.getAny().add(t);
            org.nmws.schema.result.Datum count = new org.nmws.schema.result.Datum();
            count.setType("observations");
            count.getContent().add(Long.toString(s.count()));
            data.getAny().add(count);
        }
    }

    private static org.nmws.schema.time.TimeStampType timeStamp(Instant t) {
        org.nmws.schema.time.TimeStampType ts = new org.nmws.schema.time.TimeStampType();
        ts.setType("unix");
        ts.setValueAttribute(unixTime(t));
        return ts;
    }

    private static org.nmws.schema.pinger.Datum figure(String name, double value, String time) {
        org.nmws.schema.pinger.Datum d = new org.nmws.schema.pinger.Datum();
        d.setName(name);
        d.setValue(number(value));
        String units = units(name);
        if (units != null) {
            d.setValueUnits(units);
        }
        d.setTimeType("unix");
        d.setTimeValue(time);
        return d;
    }

    private static Key key(String maKey, String ownerId) {
        Key key = new Key();
        key.setId("key." + ownerId);
        key.getParameters().add(parameters(Map.of("maKey", maKey), "keyParameters." + ownerId));
        return key;
    }

    public Document toDocument() {
        try {
            Document doc = BUILDER.get().newDocument();
            marshaller().marshal(message, doc);
            return doc;
        } catch (JAXBException e) {
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
        if ("interface".equals(s.dst().type())) {
            org.nmws.schema.topology.InterfaceType nif = new org.nmws.schema.topology.InterfaceType();
            nif.setIfName(s.dst().host());
            SubjectType subject = new SubjectType();
            subject.setId("subject." + metadataId);
            subject.getAny().add(new org.nmws.schema.topology.ObjectFactory().createInterface(nif));
            return NMWG.createSubject(subject);
        }
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
        if (o.environment().route() != null) {
            org.nmws.schema.environment.RouteType route = new org.nmws.schema.environment.RouteType();
            for (Environment.RouteHop h : o.environment().route()) {
                org.nmws.schema.environment.RouteHopType t = new org.nmws.schema.environment.RouteHopType();
                t.setTtl(h.ttl());
                t.setAddress(h.address());
                t.setName(h.name());
                route.getHop().add(t);
            }
            env.setRoute(route);
        }
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
        if (h.load() != null) {
            LoadType load = new LoadType();
            load.setCpuBusyPercent(h.load().cpuBusyPercent());
            load.setInterrupts(h.load().interrupts());
            load.setUdpRcvbufErrors(h.load().udpRcvbufErrors());
            t.setLoad(load);
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
        m.setProperty("org.glassfish.jaxb.namespacePrefixMapper", PREFIXES);
        return m;
    }

    private static JAXBContext createContext() {
        try {
            return JAXBContext.newInstance("org.nmws.schema.nmwg:org.nmws.schema.topology:org.nmws.schema.result"
                    + ":org.nmws.schema.time:org.nmws.schema.select:org.nmws.schema.ping:org.nmws.schema.pinger"
                    + ":org.nmws.schema.environment:org.nmws.schema.owamp.summary:org.nmws.schema.owamp.owd"
                    + ":org.nmws.schema.iperf:org.nmws.schema.figure:org.nmws.schema.traceroute", NmwgWriter.class.getClassLoader());
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
