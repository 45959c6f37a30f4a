package org.nmws.service.nmwg;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Semaphore;
import javax.xml.parsers.ParserConfigurationException;
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
import org.nmws.service.archive.SeriesKeys;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.EnvironmentXml;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;
import org.nmws.service.usecase.ErrorCodes;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Builds NMWG v2 response messages with the JAXB classes generated from schema/, so what
 * is written is what the XSDs define. One writer per response (it numbers ids).
 */
public final class NmwgWriter {
    private static final JAXBContext CONTEXT = createContext();
    private static final ObjectFactory NMWG = new ObjectFactory();
    private static final org.nmws.schema.select.ObjectFactory SELECT = new org.nmws.schema.select.ObjectFactory();
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
    private final DataForms forms;
    private int nextId = 1;
    /** Whether the answer holds packed frame columns (written as SAX events, their digits as bytes). */
    private boolean columns;

    private long framesLeft;
    private long framesTaken;
    private final Semaphore inFlight;

    public NmwgWriter(String type, String messageIdRef, DataForms forms) {
        this(type, messageIdRef, forms, Integer.MAX_VALUE, null);
    }

    /**
     * @param maxFrames raw frames and sample points the whole answer may carry
     *        (nmws.limits.max-answer-frames)
     * @param inFlight frames all answers being built may hold at once, shared by the service;
     *        this answer's are given back by {@link #release}
     */
    public NmwgWriter(String type, String messageIdRef, DataForms forms, int maxFrames, Semaphore inFlight) {
        this.framesLeft = maxFrames;
        this.inFlight = inFlight;
        this.forms = forms;
        message.setType(type);
        message.setId("message." + Long.toHexString(System.nanoTime()));
        message.setMessageIdRef(messageIdRef);
    }

    /**
     * Charges an observation's frames and sample points to the answer's budget, or refuses:
     * the answer is built in memory, and a few requests for raw data could otherwise fill it.
     */
    public void takeFrames(Observation o) throws NmwgException {
        long points = o.frames() == null ? 0 : o.frames().size();
        for (long[] series : o.samples() == null ? java.util.List.<long[]>of() : o.samples().values()) {
            points += series.length;
        }
        if (points > framesLeft) {
            framesLeft = 0;
            throw new NmwgException(ErrorCodes.MA_QUERY, "the raw data asked for exceeds what one answer may carry ("
                    + "nmws.limits.max-answer-frames); ask for a shorter time range, fewer data, or without raw");
        }
        // Bounded answers are not enough when many are built at once (four of 180 000 frames
        // filled a 384 MB heap): all answers together hold at most what the service allows.
        if (inFlight != null && points > 0 && !inFlight.tryAcquire((int) points)) {
            throw new NmwgException(ErrorCodes.MA_QUERY, "the service is building other raw-data answers and holds "
                    + "no room for this one now (all answers together hold at most twice nmws.limits.max-answer-frames); "
                    + "retry in a few seconds, or ask without raw");
        }
        framesTaken += points;
        framesLeft -= points;
    }

    /** Gives back to the service the frames this answer held, once it has been written out. */
    public void release() {
        if (inFlight != null && framesTaken > 0) {
            inFlight.release((int) framesTaken);
            framesTaken = 0;
        }
    }

    /**
     * Adds another point's answer to one request pair (a forwarded request): its metadata and
     * data as that point wrote them, environment included, with ids prefixed so that they
     * cannot clash with this answer's, and its top metadata answering requestMetadataId.
     */
    public void imported(String requestMetadataId, Element remoteMessage, String point) throws NmwgException {
        Message remote;
        try {
            remote = CONTEXT.createUnmarshaller().unmarshal(remoteMessage, Message.class).getValue();
        } catch (JAXBException e) {
            throw new NmwgException(ErrorCodes.MP_MEASUREMENT, "point " + point + " answered a message this service cannot read");
        }
        String prefix = point + ".";
        java.util.Set<String> remoteIds = new java.util.HashSet<>();
        for (Object o : remote.getParametersOrMetadataOrData()) {
            if (o instanceof Metadata md) {
                remoteIds.add(md.getId());
            }
        }
        for (Object o : remote.getParametersOrMetadataOrData()) {
            if (o instanceof Metadata md) {
                md.setId(prefix + md.getId());
                String ref = md.getMetadataIdRef();
                md.setMetadataIdRef(ref != null && remoteIds.contains(ref) ? prefix + ref : requestMetadataId);
                message.getParametersOrMetadataOrData().add(md);
            } else if (o instanceof Data d) {
                d.setId(prefix + d.getId());
                d.setMetadataIdRef(prefix + d.getMetadataIdRef());
                message.getParametersOrMetadataOrData().add(d);
            }
        }
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

    /**
     * A pair answering with computed datums (a cost, a diagnosis): the metadata echoes the
     * subject and eventType, the data holds the datums.
     */
    public void answer(String metadataIdRef, String eventType, PathSubject subject, java.util.List<Object> datums) {
        Metadata md = metadata(metadataIdRef);
        if (subject != null) {
            md.getAny().add(subject(subject, md.getId()));
        }
        md.getAny().add(NMWG.createEventType(eventType));
        data(md.getId()).getAny().addAll(datums);
    }

    /** An observation in the form its clients read, chosen by the test that took it. */
    public void observation(String metadataIdRef, String eventType, Observation o, boolean raw) {
        observation(metadataIdRef, eventType, o, raw, false);
    }

    /** The same, with raw data packed into columns when asked ({@link FrameColumns}). */
    public void observation(String metadataIdRef, String eventType, Observation o, boolean raw, boolean packed) {
        observation(metadataIdRef, eventType, o, raw, packed, Long.toString(o.id()));
    }

    /** The same under the given maKey (a held result's: it has no id in the archive yet). */
    public void observation(String metadataIdRef, String eventType, Observation o, boolean raw, boolean packed, String maKey) {
        Data data = data(resultMetadata(metadataIdRef, eventType, o, maKey).getId());
        datums(data, o, raw, packed);
    }

    /**
     * Stored results as MAs answer them: one metadata per series (same test, path and
     * parameters; its environment that of the latest result, its key the series' maKey) and
     * one data holding every result's datums, each stamped with its time.
     */
    public void stored(String metadataIdRef, String eventType, java.util.List<Observation> found, boolean raw,
                       boolean packed) {
        for (java.util.List<Observation> group : org.nmws.service.usecase.StoredResults.bySeries(found)) {
            Observation latest = group.get(group.size() - 1);
            String maKey = SeriesKeys.of(group);
            Data data = data(resultMetadata(metadataIdRef, eventType, latest, maKey).getId());
            for (Observation o : group) {
                datums(data, o, raw, packed);
            }
        }
    }

    /**
     * An observation's datums in the form its clients read: its kind's; packed, its summary form
     * (as without raw) and then its frames and samples as columns.
     */
    private void datums(Data data, Observation o, boolean raw, boolean packed) {
        NmwgData out = new NmwgData(data);
        if (raw && packed) {
            forms.write(out, o.withFrames(java.util.List.of()), false);
            FrameColumns.write(out, o);
            columns = true;
        } else {
            forms.write(out, o, raw);
        }
    }

    /** Metadata of a result: subject, eventType, every parameter, archive key and environment. */
    private Metadata resultMetadata(String metadataIdRef, String eventType, Observation o, String maKey) {
        Metadata md = metadata(metadataIdRef);
        md.getAny().add(subject(o.subject(), md.getId()));
        md.getAny().add(NMWG.createEventType(eventType));
        md.getAny().add(NMWG.createParameters(parameters(o.parameters(), "parameters." + md.getId())));
        md.getAny().add(key(maKey, md.getId()));
        md.getAny().add(EnvironmentXml.element(o));
        return md;
    }

    /**
     * Consolidated stored data: the metadata echoes the subject, eventType, the select
     * parameters that shaped it and the series key when there is one; the data holds one
     * set of PingER-style figures per bucket, stamped with the bucket's start, plus how many
     * observations the bucket consolidates.
     */
    void consolidated(String metadataIdRef, String eventType, PathSubject subject, String maKey, Select select,
                      java.util.List<Consolidation.Bucket> buckets, java.util.function.Function<String, Unit> units) {
        Metadata md = metadata(metadataIdRef);
        if (subject != null) { // null: everything measured from a host
            md.getAny().add(subject(subject, md.getId()));
        }
        md.getAny().add(NMWG.createEventType(eventType));
        Map<String, String> sel = new java.util.LinkedHashMap<>();
        if (select.from() != null) {
            sel.put("startTime", NmwgData.unixTime(select.from()));
        }
        if (select.to() != null) {
            sel.put("endTime", NmwgData.unixTime(select.to()));
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
            String time = NmwgData.unixTime(b.start());
            data.getAny().add(figure("observations", b.observations(), null, time));
            for (Map.Entry<String, Double> e : b.figures().entrySet()) {
                data.getAny().add(figure(e.getKey(), e.getValue(), units.apply(e.getKey()).label(), time));
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
        ts.setValueAttribute(NmwgData.unixTime(t));
        return ts;
    }

    private static org.nmws.schema.pinger.Datum figure(String name, double value, String units, String time) {
        org.nmws.schema.pinger.Datum d = new org.nmws.schema.pinger.Datum();
        d.setName(name);
        d.setValue(NmwgData.number(value));
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

    /**
     * The answer as a source of SAX events that JAXB writes when it is read: a SOAP stack
     * writes it straight to the response, without a DOM in between (issue 25).
     */
    public javax.xml.transform.Source toSource() {
        try {
            Marshaller m = marshaller();
            FrameColumns.Streaming columns = new FrameColumns.Streaming();
            m.setListener(columns); // packed columns go to the consumer as numbers, not as one string
            return new MarshalledSource(message, m, columns::around);
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot write NMWG response: " + e.getMessage(), e);
        }
    }

    public byte[] toBytes() {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
            marshalUnescaped(marshaller(), message, out);
            return out.toByteArray();
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot write NMWG response: " + e.getMessage(), e);
        }
    }

    /**
     * The answer as UTF-8 into a stream that already holds what goes before it (a SOAP envelope's
     * start): no XML declaration, JAXB's own writer straight to the stream (issue 25).
     */
    public void writeFragmentTo(java.io.OutputStream out) {
        try {
            if (columns) {
                Marshaller m = marshaller();
                FrameColumns.Streaming streaming = new FrameColumns.Streaming();
                m.setListener(streaming);
                Utf8SaxWriter writer = new Utf8SaxWriter(out);
                m.marshal(message, streaming.around(writer));
                writer.flush();
            } else {
                marshalUnescaped(FRAGMENT_MARSHALLERS.get(), message, out);
            }
        } catch (org.xml.sax.SAXException | JAXBException e) {
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

    /**
     * A fragment marshaller per thread: one used at once and never handed on (writeFragmentTo),
     * so it can be kept; making and setting one up was a fifth of writing an Echo's answer.
     */
    private static final ThreadLocal<Marshaller> FRAGMENT_MARSHALLERS = ThreadLocal.withInitial(() -> {
        try {
            return fragmentMarshaller();
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot make an NMWG marshaller: " + e.getMessage(), e);
        }
    });

    static Marshaller fragmentMarshaller() throws JAXBException {
        Marshaller m = marshaller();
        m.setProperty(Marshaller.JAXB_FRAGMENT, Boolean.TRUE);
        return m;
    }

    /**
     * JAXB's own UTF-8 writer, made without the escape handler JAXB 4 hands every UTF-8 stream.
     * With any handler, each attribute and text is escaped through a new StringWriter (a
     * synchronized StringBuffer) and copied to a String before it is encoded: that was half of
     * marshalling a day's summaries (docs/benchmarks.md, issue 25). Without one, the writer
     * escapes straight into its byte buffer from its own table: the same bytes
     * (NmwgWriterBytesTest).
     */
    static void marshalUnescaped(Marshaller m, Object message, java.io.OutputStream out) throws JAXBException {
        org.glassfish.jaxb.runtime.v2.runtime.output.UTF8XmlOutput xml =
                new org.glassfish.jaxb.runtime.v2.runtime.output.UTF8XmlOutput(out,
                        ((org.glassfish.jaxb.runtime.v2.runtime.JAXBContextImpl) CONTEXT).getUTF8NameTable(), null);
        ((org.glassfish.jaxb.runtime.v2.runtime.MarshallerImpl) m).marshal(message, xml);
    }

    static Marshaller marshaller() throws JAXBException {
        Marshaller m = CONTEXT.createMarshaller();
        m.setProperty(Marshaller.JAXB_ENCODING, "UTF-8");
        m.setProperty("org.glassfish.jaxb.namespacePrefixMapper", PREFIXES);
        m.setListener(new FrameColumns.Texts()); // a packed column's text is made as it is written
        return m;
    }

    private static JAXBContext createContext() {
        try {
            // every generated package (by its ObjectFactory), and the packed column's own type
            return JAXBContext.newInstance(org.nmws.schema.nmwg.ObjectFactory.class,
                    org.nmws.schema.topology.ObjectFactory.class, org.nmws.schema.result.ObjectFactory.class,
                    org.nmws.schema.time.ObjectFactory.class, org.nmws.schema.select.ObjectFactory.class,
                    org.nmws.schema.ping.ObjectFactory.class, org.nmws.schema.pinger.ObjectFactory.class,
                    org.nmws.schema.environment.ObjectFactory.class, org.nmws.schema.owamp.summary.ObjectFactory.class,
                    org.nmws.schema.owamp.owd.ObjectFactory.class, org.nmws.schema.iperf.ObjectFactory.class,
                    org.nmws.schema.figure.ObjectFactory.class, org.nmws.schema.traceroute.ObjectFactory.class,
                    org.nmws.schema.cost.ObjectFactory.class, FrameColumns.Column.class);
        } catch (JAXBException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

}
