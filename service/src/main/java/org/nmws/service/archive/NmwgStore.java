package org.nmws.service.archive;

import org.nmws.service.observation.Namespaces;

import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.XMLStreamWriter;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.EnvironmentXml;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;

/**
 * Moves an archive between nmws instances as an NMWG {@code nmwg:store} document: one
 * metadata (subject, eventType, parameters, observation environment) and one data (PingER
 * summary datums, ping datums per frame) per observation, so other NMWG tools read it too.
 * Attributes in the nmws archive namespace carry what NMWG has no place for (the probe test,
 * the addresses reached, exact nanosecond values), so an export imports back unchanged.
 *
 * <p>Both directions stream (StAX): an archive of any size passes with one observation in
 * memory. The reader refuses DTDs and external entities, as every other parser in nmws does.
 */
public final class NmwgStore {
    static final String NMWG = Namespaces.BASE;
    static final String TOPO = Namespaces.TOPOLOGY;
    static final String PING = Namespaces.PING;
    static final String PINGER = Namespaces.PINGER;
    static final String ENV = Namespaces.ENVIRONMENT;
    static final String ARC = Namespaces.ARCHIVE;
    static final String RESULT = Namespaces.NMWS_RESULT;
    /** Values of one imported sample series held in memory before its observation is saved. */
    static final int MAX_SERIES_VALUES = 1_000_000;
    /**
     * Longest text node read from an imported store: a series of MAX_SERIES_VALUES values of up
     * to 20 characters each, with room to spare. A 300 MiB text node took the heap (issue 21).
     */
    static final int MAX_TEXT_CHARS = 24 * 1024 * 1024;

    private NmwgStore() {
    }

    /** Writes every observation that started in [from, to) as one nmwg:store; returns how many. */
    public static long export(Archive archive, Instant from, Instant to, OutputStream out) {
        try {
            XMLStreamWriter w = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            w.writeStartDocument("UTF-8", "1.0");
            w.writeStartElement("nmwg", "store", NMWG);
            w.writeNamespace("nmwg", NMWG);
            w.writeNamespace("nmwgt", TOPO);
            w.writeNamespace("ping", PING);
            w.writeNamespace("pinger", PINGER);
            w.writeNamespace("env", ENV);
            w.writeNamespace("nmwsa", ARC);
            w.writeNamespace("nmws", RESULT);
            w.writeAttribute("type", "store");
            long[] count = {0};
            archive.forEach(from, to, true, o -> {
                try {
                    write(w, o);
                    count[0]++;
                } catch (XMLStreamException e) {
                    throw new IllegalStateException("cannot write observation " + o.id() + ": " + e.getMessage(), e);
                }
            });
            w.writeEndElement();
            w.writeEndDocument();
            w.flush();
            return count[0];
        } catch (XMLStreamException e) {
            throw new IllegalStateException("cannot write nmwg:store: " + e.getMessage(), e);
        }
    }

    private static void write(XMLStreamWriter w, Observation o) throws XMLStreamException {
        String id = Long.toString(o.id());
        w.writeStartElement(NMWG, "metadata");
        w.writeAttribute("id", "meta." + id);
        w.writeAttribute(ARC, "test", o.test().key());
        optional(w, ARC, "srcAddress", o.srcAddress());
        optional(w, ARC, "dstAddress", o.dstAddress());
        w.writeStartElement(NMWG, "subject");
        w.writeAttribute("id", "subject." + id);
        w.writeStartElement(TOPO, "endPointPair");
        if (o.subject().src() != null) {
            endpoint(w, "src", o.subject().src());
        }
        endpoint(w, "dst", o.subject().dst());
        w.writeEndElement();
        w.writeEndElement();
        w.writeStartElement(NMWG, "eventType");
        w.writeCharacters(eventType(o.test()));
        w.writeEndElement();
        w.writeStartElement(NMWG, "parameters");
        w.writeAttribute("id", "parameters." + id);
        for (Map.Entry<String, String> p : o.parameters().entrySet()) {
            w.writeStartElement(NMWG, "parameter");
            w.writeAttribute("name", p.getKey());
            w.writeAttribute("value", p.getValue());
            w.writeEndElement();
        }
        w.writeEndElement();
        EnvironmentXml.write(w, o);
        w.writeEndElement();

        w.writeStartElement(NMWG, "data");
        w.writeAttribute("id", "data." + id);
        w.writeAttribute("metadataIdRef", "meta." + id);
        for (Map.Entry<String, Double> s : o.summary().entrySet()) {
            w.writeStartElement(PINGER, "datum");
            w.writeAttribute("name", s.getKey());
            // Double.toString reads back to the identical double, NaN and infinities included.
            w.writeAttribute("value", Double.toString(s.getValue()));
            w.writeEndElement();
        }
        for (Observation.Frame f : o.frames()) {
            w.writeEmptyElement(PING, "datum");
            w.writeAttribute("seqNum", Long.toString(f.seq()));
            if (!f.lost()) {
                w.writeAttribute("value", BigDecimal.valueOf(f.valueNanos(), 6).toPlainString());
                w.writeAttribute("valueUnits", "ms");
            }
            w.writeAttribute("numBytes", Long.toString(f.bytes()));
            if (f.ttl() >= 0) {
                w.writeAttribute("ttl", Integer.toString(f.ttl()));
            }
            w.writeAttribute("timeType", "unix");
            w.writeAttribute("timeValue", BigDecimal.valueOf(f.sendEpochNanos(), 9).toPlainString());
        }
        for (Map.Entry<String, long[]> series : o.samples().entrySet()) {
            w.writeStartElement(RESULT, "series");
            w.writeAttribute("name", series.getKey());
            StringBuilder values = new StringBuilder();
            for (long v : series.getValue()) {
                if (values.length() > 0) {
                    values.append(' ');
                }
                values.append(v);
            }
            w.writeCharacters(values.toString());
            w.writeEndElement();
        }
        w.writeEndElement();
    }

    private static void endpoint(XMLStreamWriter w, String role, Endpoint e) throws XMLStreamException {
        w.writeEmptyElement(TOPO, role);
        w.writeAttribute("type", e.type());
        w.writeAttribute("value", e.host());
    }

    private static void optional(XMLStreamWriter w, String ns, String name, Object value) throws XMLStreamException {
        if (value != null) {
            if (ns == null) {
                w.writeAttribute(name, value.toString());
            } else {
                w.writeAttribute(ns, name, value.toString());
            }
        }
    }

    private static String eventType(Characteristic.ProbeTest test) {
        return Characteristic.answeredBy(test).stream().findFirst().map(Characteristic::preferredEventType)
                .orElseThrow(() -> new IllegalStateException("no characteristic is measured by test " + test));
    }

    /**
     * Reads an nmwg:store and saves each observation in it (new ids, the measurement point
     * kept); returns how many. Metadata without the nmws attributes (another NMWG archive's
     * ping data) is read from its eventType, endPointPair and ping datums.
     */
    /** Metadata kept while waiting for their data; a store puts each just before its data. */
    static final int MAX_PENDING_METADATA = 10_000;
    /** Frames of one imported observation held in memory before it is saved. */
    static final int MAX_FRAMES = 1_000_000;

    public static long importInto(Archive archive, InputStream in) {
        XMLInputFactory f = XMLInputFactory.newFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setProperty(com.ctc.wstx.api.WstxInputProperties.P_MAX_TEXT_LENGTH, MAX_TEXT_CHARS);
        try {
            XMLStreamReader r = f.createXMLStreamReader(in);
            r.nextTag();
            if (!NMWG.equals(r.getNamespaceURI()) || !"store".equals(r.getLocalName())) {
                throw new IllegalArgumentException("not an nmwg:store document: root is {" + r.getNamespaceURI() + "}"
                        + r.getLocalName());
            }
            Map<String, Meta> metadata = new HashMap<>();
            long saved = 0;
            while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
                if (!NMWG.equals(r.getNamespaceURI())) {
                    skip(r);
                } else if (r.getLocalName().equals("metadata")) {
                    if (metadata.size() >= MAX_PENDING_METADATA) {
                        throw new IllegalArgumentException("more than " + MAX_PENDING_METADATA
                                + " nmwg:metadata wait for their nmwg:data: a store lists each metadata just before its data");
                    }
                    Meta m = readMetadata(r);
                    metadata.put(m.id, m);
                } else if (r.getLocalName().equals("data")) {
                    String ref = r.getAttributeValue(null, "metadataIdRef");
                    Meta m = metadata.remove(ref);
                    if (m == null) {
                        throw new IllegalArgumentException("nmwg:data " + r.getAttributeValue(null, "id")
                                + " refers to metadata '" + ref + "' that does not precede it");
                    }
                    archive.save(readData(r, m));
                    saved++;
                } else {
                    skip(r);
                }
            }
            return saved;
        } catch (XMLStreamException | com.ctc.wstx.exc.WstxLazyException e) {
            if (String.valueOf(e.getMessage()).contains("Text size limit")) {
                throw new TooLarge("nmwg:store holds a text node of more than " + MAX_TEXT_CHARS
                        + " characters (the longest series of " + MAX_SERIES_VALUES + " values is shorter)", e);
            }
            // Woodstox reports some malformed text (a cut multi-byte character) unchecked, when read.
            throw new IllegalArgumentException("nmwg:store is not well-formed XML: " + e.getMessage(), e);
        } catch (NullPointerException | ArithmeticException | java.time.DateTimeException | NumberFormatException e) {
            // A missing or malformed attribute in the document: the client's error, not ours.
            throw new IllegalArgumentException("nmwg:store has a missing or malformed value: " + e.getMessage(), e);
        }
    }

    /** A store with a part larger than the importer reads: the client's error, answered 413. */
    public static final class TooLarge extends IllegalArgumentException {
        TooLarge(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Imports are all or nothing: a document that fails halfway leaves the archive as it was. */
    public static long importAtomically(Archive archive, InputStream in) {
        return archive.atomically(() -> importInto(archive, in));
    }

    /** What a metadata block says about one observation. */
    private static final class Meta {
        String id;
        Characteristic.ProbeTest test;
        String srcAddress;
        String dstAddress;
        Endpoint src;
        Endpoint dst;
        Map<String, String> parameters = new LinkedHashMap<>();
        String measurementPoint = "";
        Instant start;
        Instant end;
        Environment environment = new Environment(null, null);
        String tool;
        String toolVersion;
    }

    private static Meta readMetadata(XMLStreamReader r) throws XMLStreamException {
        Meta m = new Meta();
        m.id = r.getAttributeValue(null, "id");
        String test = r.getAttributeValue(ARC, "test");
        m.test = test == null ? null : Characteristic.ProbeTest.ofKey(test);
        m.srcAddress = r.getAttributeValue(ARC, "srcAddress");
        m.dstAddress = r.getAttributeValue(ARC, "dstAddress");
        int depth = 1;
        while (depth > 0) {
            int ev = r.next();
            if (ev == XMLStreamConstants.END_ELEMENT) {
                depth--;
                continue;
            }
            if (ev != XMLStreamConstants.START_ELEMENT) {
                continue;
            }
            depth++;
            String ns = r.getNamespaceURI();
            String name = r.getLocalName();
            if (TOPO.equals(ns) && (name.equals("src") || name.equals("dst"))) {
                Endpoint e = new Endpoint(r.getAttributeValue(null, "value"), r.getAttributeValue(null, "type"));
                if (name.equals("src")) {
                    m.src = e;
                } else {
                    m.dst = e;
                }
            } else if (NMWG.equals(ns) && name.equals("eventType")) {
                String et = r.getElementText().trim();
                depth--;
                if (m.test == null) {
                    m.test = Characteristic.lookup(et).map(Characteristic::test).orElseThrow(() ->
                            new IllegalArgumentException("metadata " + m.id + " has eventType '" + et + "' nmws does not keep"));
                }
                if (m.tool == null) {
                    m.tool = et;
                }
            } else if (NMWG.equals(ns) && name.equals("parameter")) {
                String pname = r.getAttributeValue(null, "name");
                String value = r.getAttributeValue(null, "value");
                String text = r.getElementText();
                depth--;
                m.parameters.put(pname, value != null ? value : text.trim());
            } else if (ENV.equals(ns) && name.equals("environment")) {
                EnvironmentXml.Read env = EnvironmentXml.read(r); // up to its end tag
                depth--;
                m.measurementPoint = orElse(env.measurementPoint(), "");
                m.start = env.start();
                m.end = env.end();
                m.environment = env.environment();
                m.tool = env.tool() != null ? env.tool() : m.tool;
                m.toolVersion = env.toolVersion();
            }
        }
        if (m.dst == null || m.test == null) {
            throw new IllegalArgumentException("metadata " + m.id + " names no endPointPair dst or no eventType");
        }
        return m;
    }

    private static Observation readData(XMLStreamReader r, Meta m) throws XMLStreamException {
        Map<String, Double> summary = new LinkedHashMap<>();
        List<Observation.Frame> frames = new ArrayList<>();
        Map<String, long[]> samples = new LinkedHashMap<>();
        while (r.nextTag() == XMLStreamConstants.START_ELEMENT) {
            String ns = r.getNamespaceURI();
            if (RESULT.equals(ns) && r.getLocalName().equals("series")) {
                String name = r.getAttributeValue(null, "name");
                String text = r.getElementText().trim(); // leaves the reader on the end tag
                String[] parts = text.isEmpty() ? new String[0] : text.split("\\s+");
                if (name == null || parts.length > MAX_SERIES_VALUES) {
                    throw new IllegalArgumentException("an nmws:series needs a name and at most " + MAX_SERIES_VALUES + " values");
                }
                long[] values = new long[parts.length];
                for (int i = 0; i < parts.length; i++) {
                    values[i] = Long.parseLong(parts[i]);
                }
                samples.put(name, values);
                continue;
            }
            if (PINGER.equals(ns) && r.getLocalName().equals("datum")) {
                summary.put(r.getAttributeValue(null, "name"), Double.valueOf(r.getAttributeValue(null, "value")));
            } else if (PING.equals(ns) && r.getLocalName().equals("datum")) {
                String value = r.getAttributeValue(null, "value");
                String ttl = r.getAttributeValue(null, "ttl");
                String bytes = r.getAttributeValue(null, "numBytes");
                if (frames.size() >= MAX_FRAMES) {
                    throw new IllegalArgumentException("an observation carries more than " + MAX_FRAMES + " frames");
                }
                frames.add(new Observation.Frame(Long.parseLong(r.getAttributeValue(null, "seqNum")),
                        seconds(r.getAttributeValue(null, "timeValue")),
                        value == null ? Observation.Frame.LOST : new BigDecimal(value).movePointRight(6).longValueExact(),
                        bytes == null ? 0 : Long.parseLong(bytes), ttl == null ? -1 : Integer.parseInt(ttl)));
            }
            skip(r);
        }
        Instant start = m.start != null ? m.start : frames.isEmpty() ? null : JdbcArchive.instant(frames.get(0).sendEpochNanos());
        if (start == null) {
            throw new IllegalArgumentException("metadata " + m.id + " has no startTime and its data no timed datum");
        }
        Instant end = m.end != null ? m.end : frames.isEmpty() ? start
                : JdbcArchive.instant(frames.get(frames.size() - 1).sendEpochNanos());
        return new Observation(0, m.measurementPoint, m.test, new PathSubject(m.src, m.dst), m.srcAddress, m.dstAddress,
                orElse(m.tool, "unknown"), m.toolVersion, m.parameters, m.environment, start, end, summary, frames,
                samples);
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

    private static long seconds(String unixSeconds) {
        return unixSeconds == null ? 0 : new BigDecimal(unixSeconds).movePointRight(9).longValueExact();
    }




    private static String orElse(String s, String fallback) {
        return s == null ? fallback : s;
    }
}
