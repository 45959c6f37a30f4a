package org.nmws.service.nmwg;

import org.nmws.service.archive.SeriesKeys;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.usecase.ErrorCodes;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Semaphore;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.Series;
import org.nmws.service.archive.SeriesQuery;
import org.nmws.service.cost.CostQuery;
import org.nmws.service.cost.CostXml;
import org.nmws.service.cost.DiagnosisService;
import org.nmws.service.cost.TransferCost;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.TestBudget;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.Params;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.Measure;
import org.nmws.service.usecase.Schedules;
import org.nmws.service.usecase.TransferCosts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The one entry point behind every transport: takes an NMWG v2 message, answers it pair
 * by pair (each metadata/data pair gets its own result or error), and never lets an
 * exception escape as anything but an NMWG error result.
 */
public class MessageHandler {
    private static final Logger log = LoggerFactory.getLogger(MessageHandler.class);
    static final String SELECT_EVENT_TYPE = "http://ggf.org/ns/nmwg/ops/select/2.0";
    private static final int MAX_STORED_RESULTS = 1000;
    /** Consolidation reads summaries only (no frames), so it may read many more. */
    private static final int MAX_CONSOLIDATED = 100_000;
    private static final int MAX_SERIES = 1000;

    private final SafeXml xml;
    private final NmwgReader reader = new NmwgReader();
    private final MeasurementService measurements;
    private final Archive archive;
    private final NmwsProperties props;
    private final DataForms forms;
    private final Measure measure;
    /** Cost and diagnosis answers (eventTypes cost/1.0 and diagnosis/1.0); null where not wired. */
    private final TransferCosts costs;
    private final DiagnosisService diagnoses;
    /** Raw frames held by all answers being built: two full answers' worth. */
    private final Semaphore framesInFlight;

    /** Without a mesh, schedules, cost or diagnosis (unit tests). */
    public MessageHandler(SafeXml xml, MeasurementService measurements, Archive archive, NmwsProperties props,
                          DataForms forms) {
        this(xml, measurements, archive, props, forms,
                new Measure(measurements, new Forwarder(Mesh.NONE, "", xml::parse, java.time.Duration.ofSeconds(1)),
                        Schedules.NONE), null, null);
    }

    /** With the use cases the NMWG dialect answers through. */
    public MessageHandler(SafeXml xml, MeasurementService measurements, Archive archive, NmwsProperties props,
                          DataForms forms, Measure measure, TransferCosts costs, DiagnosisService diagnoses) {
        this.costs = costs;
        this.diagnoses = diagnoses;
        this.measure = measure;
        this.forms = forms;
        this.xml = xml;
        this.measurements = measurements;
        this.archive = archive;
        this.props = props;
        this.framesInFlight = new Semaphore(2 * props.limits().maxAnswerFrames());
    }

    /** Raw bytes in (plain HTTP, XML-RPC string), response bytes out. */
    public byte[] handle(byte[] request, Caller caller) {
        try {
            return written(answer(reader.read(xml.parse(request)), caller));
        } catch (NmwgException e) {
            return errorMessage(null, "ErrorResponse", e).toBytes();
        }
    }

    /** A message element already parsed (by a transport routing dialects), response bytes out. */
    public byte[] handleParsed(Element message, Caller caller) {
        try {
            xml.checkDepth(message);
            return written(answer(reader.read(message), caller));
        } catch (NmwgException e) {
            return errorMessage(null, "ErrorResponse", e).toBytes();
        }
    }

    /** A message element already parsed by a SOAP stack, response document out. */
    public Document handle(Element message, Caller caller) {
        try {
            xml.checkDepth(message);
            NmwgWriter w = answer(reader.read(message), caller);
            try {
                return w.toDocument();
            } finally {
                w.release();
            }
        } catch (NmwgException e) {
            return errorMessage(null, "ErrorResponse", e).toDocument();
        }
    }

    private static byte[] written(NmwgWriter w) {
        try {
            return w.toBytes();
        } finally {
            w.release();
        }
    }

    /** A SOAP body with no element in it. */
    public Document handleEmptyBody() {
        return errorMessage(null, "ErrorResponse",
                new NmwgException(ErrorCodes.PARSE_ERROR, "the SOAP body carries no nmwg:message")).toDocument();
    }

    NmwgWriter answer(RequestMessage msg, Caller caller) {
        String replyType = replyType(msg.type());
        try {
            return switch (msg.type()) {
                case "EchoRequest" -> echo(msg);
                case "MeasurementRequest", "SetupDataRequest", "MetadataKeyRequest", "DataInfoRequest" -> perPair(msg, replyType, caller);
                default -> throw new NmwgException(ErrorCodes.ACTION_NOT_SUPPORTED, "message type '" + msg.type()
                        + "' is not supported; this service answers EchoRequest, MetadataKeyRequest, SetupDataRequest,"
                        + " DataInfoRequest, MeasurementRequest");
            };
        } catch (NmwgException e) {
            return errorMessage(msg.id(), replyType, e);
        }
    }

    private NmwgWriter echo(RequestMessage msg) {
        NmwgWriter w = new NmwgWriter("EchoResponse", msg.id(), forms);
        String ref = msg.metadata().isEmpty() ? null : msg.metadata().get(0).id();
        w.status(ref, ErrorCodes.SUCCESS_ECHO, "The echo request has passed.");
        return w;
    }

    private NmwgWriter perPair(RequestMessage msg, String replyType, Caller caller) throws NmwgException {
        if (msg.data().isEmpty()) {
            throw new NmwgException(ErrorCodes.STRUCTURE, msg.type() + " has no nmwg:data trigger: nothing to answer");
        }
        if (msg.data().size() > props.limits().maxPairsPerMessage()) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "message has " + msg.data().size()
                    + " data triggers; this service answers at most " + props.limits().maxPairsPerMessage());
        }
        // Each test may hold a path for max-duration: many in one message would hold the
        // client's connection (and a server thread) for hours.
        if (msg.type().equals("MeasurementRequest") && msg.data().size() > props.limits().maxMeasurementsPerMessage()) {
            throw new NmwgException(ErrorCodes.PARAMETER, "MeasurementRequest asks for " + msg.data().size()
                    + " tests; this service runs at most " + props.limits().maxMeasurementsPerMessage()
                    + " per message: send the rest in further messages");
        }
        NmwgWriter w = new NmwgWriter(replyType, msg.id(), forms, props.limits().maxAnswerFrames(), framesInFlight);
        Map<String, RequestMessage.Metadata> byId = msg.metadataById();
        // every test the message starts, by any trigger (diagnoses and cost refreshes too), counts
        caller = caller.withBudget(new TestBudget(props.limits().maxMeasurementsPerMessage()));
        List<Resolved> costTriggers = new ArrayList<>();
        for (RequestMessage.Data data : msg.data()) {
            String ref = data.metadataIdRef();
            try {
                // Listing what is stored needs no eventType (an empty filter lists everything).
                boolean listing = msg.type().equals("MetadataKeyRequest") || msg.type().equals("DataInfoRequest");
                Resolved r = resolve(data, byId, !listing);
                if (r.advice() != null && !listing) {
                    // the destinations of one message are ranked together, after every trigger is read
                    if (r.advice().equals(Namespaces.COST)) {
                        costTriggers.add(r);
                    } else {
                        diagnose(w, r, msg.type().equals("MeasurementRequest"), caller);
                    }
                    continue;
                }
                switch (msg.type()) {
                    case "MeasurementRequest" -> measure(w, r, caller);
                    case "MetadataKeyRequest" -> describeSeries(w, r, false);
                    case "DataInfoRequest" -> describeSeries(w, r, true);
                    default -> setupData(w, r);
                }
            } catch (NmwgException e) {
                w.status(ref, e.code(), e.getMessage());
            } catch (RuntimeException e) {
                log.error("unexpected failure answering data {} of message {}", data.id(), msg.id(), e);
                w.status(ref, ErrorCodes.INTERNAL, "internal error answering this request ("
                        + e.getClass().getSimpleName() + "); it has been logged");
            }
        }
        if (!costTriggers.isEmpty()) {
            cost(w, costTriggers, msg.type().equals("MeasurementRequest"), caller);
        }
        return w;
    }

    /**
     * Cost triggers: each names one destination (its subject's dst) and, in its parameters,
     * bytes and optionally maxAge (ISO 8601 or seconds), src, refresh, timeBudget (s) and streams;
     * the triggers that share source and parameters are ranked together, each answered with its
     * cost:datum (rank among them). A MeasurementRequest refreshes stale destinations.
     */
    private void cost(NmwgWriter w, List<Resolved> triggers, boolean measureRequest, Caller caller) {
        Map<List<Object>, List<Resolved>> groups = new LinkedHashMap<>();
        Map<Resolved, PathSubject> subjects = new java.util.HashMap<>();
        for (Resolved r : triggers) {
            try {
                if (costs == null) {
                    throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "this service does not answer cost requests");
                }
                if (r.subject() == null) {
                    throw new NmwgException(ErrorCodes.SUBJECT, "a cost request needs a subject with an endPointPair");
                }
                PathSubject subject = SubjectReader.forTest(r.subject(), Characteristic.ProbeTest.TCP_STREAM);
                subjects.put(r, subject);
                only(r.parameters(), "a cost request", COST_PARAMETERS);
                Map<String, String> p = new java.util.TreeMap<>(r.parameters());
                groups.computeIfAbsent(List.of(subject.src() == null ? "" : subject.src().host(), p), k -> new ArrayList<>()).add(r);
            } catch (NmwgException e) {
                w.status(r.metadataId(), e.code(), e.getMessage());
            }
        }
        // the refreshes of all groups of one message share one budget: a message cannot hold the
        // service longer than one query may
        long deadline = System.nanoTime() + CostQuery.MAX_BUDGET.toNanos();
        for (List<Resolved> group : groups.values()) {
            Resolved first = group.get(0);
            try {
                PathSubject s0 = subjects.get(first);
                Map<String, String> p = first.parameters();
                List<String> dsts = group.stream().map(r -> subjects.get(r).dst().host()).toList();
                CostQuery q = strict(() -> new CostQuery(
                        s0.src() == null ? p.get("src") : s0.src().host(), dsts, Params.decimal(p, "bytes", 0, 0, 1e18),
                        duration(p.get("maxAge"), java.time.Duration.ofHours(24)),
                        measureRequest || Params.bool(p, "refresh"), duration(p.get("timeBudget"), null),
                        Params.integer(p, "streams", 1, 1, 16),
                        p.containsKey("port") ? Params.integer(p, "port", 0, 1, 65535) : null, p.get("protocol")));
                q = q.within(java.time.Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                List<TransferCost> ranked;
                try {
                    ranked = costs.rank(caller, q);
                } catch (MeasurementException e) {
                    throw new NmwgException(ErrorCodes.of(e.kind()), e.getMessage(), e);
                }
                List<Object> datums = CostXml.datums(ranked);
                for (Resolved r : group) {
                    String dst = subjects.get(r).dst().host();
                    int i = 0;
                    while (i < ranked.size() && !ranked.get(i).dst().equals(dst)) {
                        i++;
                    }
                    if (i < ranked.size()) {
                        w.answer(r.metadataId(), r.eventType(), subjects.get(r), List.of(datums.get(i)));
                    } else {
                        w.status(r.metadataId(), ErrorCodes.INTERNAL, "no cost came back for " + dst);
                    }
                }
            } catch (NmwgException e) {
                group.forEach(r -> w.status(r.metadataId(), e.code(), e.getMessage()));
            } catch (RuntimeException e) {
                log.error("unexpected failure answering a cost request", e);
                group.forEach(r -> w.status(r.metadataId(), ErrorCodes.INTERNAL, "internal error answering this request ("
                        + e.getClass().getSimpleName() + "); it has been logged"));
            }
        }
    }

    /** The parameters a cost request reads. */
    private static final Set<String> COST_PARAMETERS = Set.of("bytes", "maxAge", "src", "refresh", "timeBudget", "streams",
            "port", "protocol");
    /** The parameters a diagnosis request reads (streams, windowSize and congestion for the TCP test it may run). */
    private static final Set<String> DIAGNOSIS_PARAMETERS = Set.of("measure", "maxAge", "streams", "windowSize", "congestion");

    /** A parameter the request does not read is refused by name, never dropped (issue 20). */
    private static void only(Map<String, String> p, String what, Set<String> reads) throws NmwgException {
        for (String name : p.keySet()) {
            if (!reads.contains(name)) {
                throw new NmwgException(ErrorCodes.PARAMETER, "parameter " + Params.echo(name) + " is not one " + what
                        + " reads; it reads " + String.join(", ", new java.util.TreeSet<>(reads)));
            }
        }
    }

    /** A duration parameter: ISO 8601 (PT1H) or seconds. */
    private static java.time.Duration duration(String v, java.time.Duration dflt) {
        if (v == null || v.isBlank()) {
            return dflt;
        }
        String t = v.trim();
        if (t.startsWith("P") || t.startsWith("p")) {
            try {
                return java.time.Duration.parse(t);
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException("not an ISO 8601 duration: " + Params.echo(t));
            }
        }
        double seconds = Params.decimal(Map.of("d", t), "d", 0, 0, 3.2e9);
        return java.time.Duration.ofMillis(Math.round(seconds * 1000));
    }

    /** A diagnosis trigger: why the path of its subject is slow; a MeasurementRequest (or measure=true) runs the tests it needs. */
    private void diagnose(NmwgWriter w, Resolved r, boolean measureRequest, Caller caller) throws NmwgException {
        if (diagnoses == null) {
            throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "this service does not answer diagnosis requests");
        }
        if (r.subject() == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "a diagnosis request needs a subject with an endPointPair");
        }
        PathSubject subject = SubjectReader.forTest(r.subject(), Characteristic.ProbeTest.TCP_STREAM);
        Map<String, String> p = r.parameters();
        only(p, "a diagnosis request", DIAGNOSIS_PARAMETERS);
        boolean measure = measureRequest || strict(() -> Params.bool(p, "measure"));
        java.time.Duration maxAge = strict(() -> duration(p.get("maxAge"), java.time.Duration.ofHours(1)));
        try {
            DiagnosisService.Diagnosis d = diagnoses.diagnose(caller,
                    subject.src() == null ? null : subject.src().host(), subject.dst().host(), maxAge, measure, p);
            w.answer(r.metadataId(), r.eventType(), subject, List.of(CostXml.diagnosis(d)));
        } catch (MeasurementException e) {
            throw new NmwgException(ErrorCodes.of(e.kind()), "the diagnosis needs a test: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.PARAMETER, e.getMessage(), e);
        }
    }

    /** What a data trigger asks for, after following its metadata chain. */
    record Resolved(String metadataId, Characteristic characteristic, String eventType, Element subject,
                    Map<String, String> parameters, List<RequestMessage.Param> select, String key, String advice) {
        Resolved(String metadataId, Characteristic characteristic, String eventType, Element subject,
                 Map<String, String> parameters, List<RequestMessage.Param> select, String key) {
            this(metadataId, characteristic, eventType, subject, parameters, select, key, null);
        }
    }

    /** The nmws eventType a chain names that is not a characteristic: cost or diagnosis; else null. */
    private static String advice(String eventType) {
        String e = eventType.trim();
        String slashed = e.endsWith("/") ? e : e + "/";
        return slashed.equals(Namespaces.COST) ? Namespaces.COST : slashed.equals(Namespaces.DIAGNOSIS) ? Namespaces.DIAGNOSIS : null;
    }

    /**
     * Follows data -> metadata -> metadataIdRef (or the subject's metadataIdRef) to the end,
     * the nearest metadata winning for each item; subjects merge element by element (see
     * SubjectReader.merge). Dangling references and cycles are errors.
     */
    Resolved resolve(RequestMessage.Data data, Map<String, RequestMessage.Metadata> byId) throws NmwgException {
        return resolve(data, byId, true);
    }

    /**
     * @param eventTypeRequired whether a chain naming no characteristic (no known eventType,
     *        no tool-namespace subject, no key) is an error
     */
    Resolved resolve(RequestMessage.Data data, Map<String, RequestMessage.Metadata> byId, boolean eventTypeRequired)
            throws NmwgException {
        if (data.metadataIdRef() == null) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "data '" + data.id() + "' has no metadataIdRef");
        }
        String id = data.metadataIdRef();
        Set<String> seen = new HashSet<>();
        Element subject = null;
        String eventType = null;
        Characteristic characteristic = null;
        List<String> unknown = new ArrayList<>();
        Map<String, String> params = new LinkedHashMap<>();
        List<RequestMessage.Param> select = new ArrayList<>();
        String key = null;
        String toolNamespace = null;
        String adviceType = null;
        String adviceEventType = null;
        List<RequestMessage.Metadata> chain = new ArrayList<>();
        walk(id, data, byId, new java.util.LinkedHashSet<>(), seen, chain);
        List<Element> subjects = new ArrayList<>();
        for (RequestMessage.Metadata md : chain) {
            if (md.subject() != null && !NmwgReader.children(md.subject()).isEmpty()) {
                subjects.add(md.subject());
            }
            if (toolNamespace == null && md.subject() != null && isToolNamespace(md.subject().getNamespaceURI())) {
                toolNamespace = md.subject().getNamespaceURI();
            }
            for (String et : md.eventTypes()) {
                if (et.startsWith(SELECT_EVENT_TYPE)) {
                    continue;
                }
                if (advice(et) != null) {
                    if (adviceType == null) {
                        adviceType = advice(et);
                        adviceEventType = et;
                    }
                    continue;
                }
                Optional<Characteristic> c = Characteristic.lookup(et);
                if (c.isPresent() && characteristic == null) {
                    characteristic = c.get();
                    eventType = et;
                } else if (c.isEmpty()) {
                    unknown.add(et);
                }
            }
            for (RequestMessage.Param p : md.parameters()) {
                params.putIfAbsent(p.name(), p.value());
            }
            select.addAll(md.selectParameters());
            if (key == null) {
                key = md.key();
            }
        }
        if (!subjects.isEmpty()) {
            subject = SubjectReader.merge(subjects);
        }
        if (characteristic == null && unknown.isEmpty() && toolNamespace != null) {
            // perfSONAR MPs name the tool by the subject's namespace alone (ping:subject, owamp:subject).
            Optional<Characteristic> c = Characteristic.lookup(toolNamespace);
            if (c.isPresent()) {
                characteristic = c.get();
                eventType = toolNamespace;
            } else {
                unknown.add(toolNamespace);
            }
        }
        if (adviceType != null && characteristic == null) {
            return new Resolved(data.metadataIdRef(), null, adviceEventType, subject, params, select, key, adviceType);
        }
        if (characteristic == null && (key == null || !unknown.isEmpty()) && (eventTypeRequired || !unknown.isEmpty())) {
            if (!unknown.isEmpty()) {
                throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "eventType '" + unknown.get(0)
                        + "' is not supported; supported: " + supported());
            }
            throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "metadata '" + data.metadataIdRef()
                    + "' names no eventType; supported: " + supported());
        }
        return new Resolved(data.metadataIdRef(), characteristic, eventType, subject, params, select, key);
    }

    /**
     * An empty endPointPair asks for every stored path: each path (source, destination) the
     * archive holds for the test is answered as its own pair, up to MAX_SERIES paths.
     */
    private void everyPath(NmwgWriter w, Resolved r, Characteristic.ProbeTest test, Select select, boolean raw)
            throws NmwgException {
        Map<String, String> params = new LinkedHashMap<>(r.parameters());
        params.remove("raw");
        List<Series> series;
        try {
            series = archive.series(new SeriesQuery(test, null, null, params, MAX_SERIES));
        } catch (RuntimeException e) {
            log.error("archive series query failed", e);
            throw new NmwgException(ErrorCodes.MA_QUERY, "the archive could not answer: " + e.getMessage());
        }
        Set<String> paths = new java.util.LinkedHashSet<>();
        boolean any = false;
        for (Series s : series) {
            String src = s.subject().src() == null ? null : s.subject().src().host();
            if (!paths.add(src + " " + s.subject().dst().host())) {
                continue;
            }
            any = true;
            ObservationQuery q = new ObservationQuery(test, s.subject().dst().host(), src, select.from(), select.to(),
                    raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS);
            answerStored(w, r.metadataId(), r.eventType(), r.characteristic().dottedName(), s.subject(), null, q, select, raw);
        }
        if (!any) {
            w.noData(r.metadataId(), r.eventType(), null, "No data in the archive for " + r.characteristic().dottedName()
                    + " on any path.");
        }
    }

    /** Deepest reference chain followed; a message's chains are short, so this only stops abuse. */
    static final int MAX_CHAIN = 64;

    /**
     * The metadata a data trigger refers to and everything they refer to, nearest first: each
     * metadata's own metadataIdRef, then its subject's (a select:subject naming the base
     * metadata while the metadata chains to a select one: perfSONAR's merge chaining), in any
     * order and to any depth up to MAX_CHAIN. A metadata reached twice by different routes is
     * taken once; one reached again on its own route is a cycle.
     */
    private static void walk(String id, RequestMessage.Data data, Map<String, RequestMessage.Metadata> byId,
                             java.util.LinkedHashSet<String> route, Set<String> seen, List<RequestMessage.Metadata> out)
            throws NmwgException {
        if (route.contains(id)) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "metadata references form a cycle through '" + id + "'");
        }
        if (route.size() >= MAX_CHAIN) {
            throw new NmwgException(ErrorCodes.STRUCTURE, "metadata references are chained deeper than " + MAX_CHAIN);
        }
        if (!seen.add(id)) {
            return;
        }
        RequestMessage.Metadata md = byId.get(id);
        if (md == null) {
            throw new NmwgException(ErrorCodes.STRUCTURE, (route.isEmpty() ? "data '" + data.id() + "'" : "a metadata")
                    + " refers to metadata '" + id + "', which is not in the message");
        }
        out.add(md);
        route.add(id);
        if (md.metadataIdRef() != null) {
            walk(md.metadataIdRef(), data, byId, route, seen, out);
        }
        if (md.subjectIdRef() != null && !md.subjectIdRef().equals(md.metadataIdRef())) {
            walk(md.subjectIdRef(), data, byId, route, seen, out);
        }
        route.remove(id);
    }

    private void measure(NmwgWriter w, Resolved r, Caller caller) throws NmwgException {
        if (r.subject() == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "MeasurementRequest needs a subject with an endPointPair");
        }
        if (r.characteristic() == null) {
            throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "MeasurementRequest names no eventType to measure; supported: "
                    + supported());
        }
        PathSubject subject = SubjectReader.forTest(r.subject(), strict(() -> r.characteristic().testFor(r.parameters())));
        Measure.Outcome outcome;
        try {
            outcome = measure.measure(caller, r.characteristic(), r.eventType(), subject, r.parameters());
        } catch (MeasurementException e) {
            throw new NmwgException(ErrorCodes.of(e.kind()), e.getMessage(), e);
        }
        if (outcome instanceof Measure.Ran ran) {
            w.observation(r.metadataId(), r.eventType(), ran.observation(), ran.raw());
        } else if (outcome instanceof Measure.Forwarded f) {
            w.imported(r.metadataId(), f.message(), f.point());
        } else if (outcome instanceof Measure.Scheduled sc) {
            w.status(r.metadataId(), ErrorCodes.SUCCESS_SCHEDULE, sc.description());
        }
    }

    private void setupData(NmwgWriter w, Resolved r) throws NmwgException {
        boolean raw = strict(() -> Params.bool(r.parameters(), "raw"));
        Select select = Select.parse(r.select());
        if (r.key() != null) {
            setupDataByKey(w, r, select, raw);
            return;
        }
        if (r.subject() == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "SetupDataRequest needs a subject with an endPointPair or a key");
        }
        Characteristic.ProbeTest test = strict(() -> r.characteristic().testFor(r.parameters()));
        Endpoint fromHost = test == Characteristic.ProbeTest.UTILIZATION ? null : SubjectReader.sourceOnly(r.subject());
        if (fromHost != null) { // everything measured from a host, to anywhere
            ObservationQuery q = new ObservationQuery(test, null, fromHost.host(), select.from(), select.to(),
                    raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS);
            answerStored(w, r.metadataId(), r.eventType(), r.characteristic().dottedName(), null, null, q, select, raw);
            return;
        }
        if (SubjectReader.emptyPair(r.subject())) {
            everyPath(w, r, test, select, raw);
            return;
        }
        PathSubject subject = SubjectReader.forTest(r.subject(), test);
        ObservationQuery q = new ObservationQuery(test, subject.dst().host(),
                subject.src() == null ? null : subject.src().host(), select.from(), select.to(),
                raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS);
        answerStored(w, r.metadataId(), r.eventType(), r.characteristic().dottedName(), subject, null, q, select, raw);
    }

    /** A key from an earlier answer: a series key (from MetadataKeyRequest) or one observation's id. */
    private void setupDataByKey(NmwgWriter w, Resolved r, Select select, boolean raw) throws NmwgException {
        if (r.key().isEmpty()) {
            throw new NmwgException(ErrorCodes.MA_QUERY, "the nmwg:key carries no maKey parameter;"
                    + " send back a key from a MetadataKeyRequest answer");
        }
        if (SeriesKeys.isSeriesKey(r.key())) {
            SeriesKeys.Key k = seriesKey(r.key());
            ObservationQuery q = new ObservationQuery(k.test(), k.subject().dst().host(),
                    k.subject().src() == null ? null : k.subject().src().host(), select.from(), select.to(),
                    raw && !select.consolidates(), select.consolidates() ? MAX_CONSOLIDATED : MAX_STORED_RESULTS,
                    k.parameters());
            String et = r.eventType() != null ? r.eventType() : eventTypesOf(k.test()).get(0);
            answerStored(w, r.metadataId(), et, "the series of maKey " + r.key(), k.subject(), r.key(), q, select, raw);
            return;
        }
        long id;
        try {
            id = Long.parseLong(r.key());
        } catch (NumberFormatException e) {
            throw new NmwgException(ErrorCodes.MA_QUERY, "maKey '" + r.key() + "' is not a key this archive issued");
        }
        Observation o = archive.findById(id, raw).orElseThrow(() ->
                new NmwgException(ErrorCodes.MA_QUERY, "maKey '" + r.key() + "' matches nothing in the archive"));
        w.takeFrames(o);
        String et = r.eventType() != null ? r.eventType() : eventTypesOf(o.test()).get(0);
        w.observation(r.metadataId(), et, o, raw);
    }

    /** The observations with their frames, each charged to the answer's frame budget as it is read. */
    private List<Observation> withFrames(NmwgWriter w, List<Observation> summaries) throws NmwgException {
        List<Observation> full = new ArrayList<>(summaries.size());
        for (Observation s : summaries) {
            Observation o = archive.findById(s.id(), true).orElse(s); // purged meanwhile: its summary
            w.takeFrames(o);
            full.add(o);
        }
        return full;
    }

    /** Runs a stored-data query and writes what it found: each observation, consolidated buckets, or no data. */
    private void answerStored(NmwgWriter w, String metadataId, String eventType, String what, PathSubject subject,
                              String maKey, ObservationQuery q, Select select, boolean raw) throws NmwgException {
        List<Observation> found;
        try {
            // Raw frames are read one observation at a time against the answer's budget, so a
            // request for more than an answer may hold is refused before it is all in memory.
            found = q.withFrames() ? withFrames(w, archive.find(q.summariesOnly())) : archive.find(q);
        } catch (RuntimeException e) {
            log.error("archive query failed", e);
            throw new NmwgException(ErrorCodes.MA_QUERY, "the archive could not answer: " + e.getMessage());
        }
        if (found.isEmpty()) {
            w.noData(metadataId, eventType, subject, "No data in the archive for " + what
                    + (subject != null ? " to " + subject.dst().host() : " from " + q.src())
                    + (select.from() == null ? "" : " from " + select.from())
                    + (select.to() == null ? "" : " to " + select.to()) + ".");
            return;
        }
        if (select.consolidates()) {
            w.consolidated(metadataId, eventType, subject, maKey, select,
                    Consolidation.buckets(found, select.function(), select.resolutionSeconds()),
                    measurements.kind(found.get(0).test())::unit);
            return;
        }
        w.stored(metadataId, eventType, found, raw);
    }

    /**
     * MetadataKeyRequest and DataInfoRequest: the series the archive holds that match the
     * subject (src and dst each optional), eventType and parameters, each with its maKey;
     * DataInfoRequest adds how many observations each holds and their time span.
     */
    private void describeSeries(NmwgWriter w, Resolved r, boolean dataInfo) throws NmwgException {
        SeriesQuery query;
        if (r.key() != null && SeriesKeys.isSeriesKey(r.key())) {
            SeriesKeys.Key k = seriesKey(r.key());
            query = new SeriesQuery(k.test(), k.subject().src() == null ? null : k.subject().src().host(),
                    k.subject().dst().host(), k.parameters(), MAX_SERIES);
        } else {
            SubjectReader.Ends ends = r.subject() == null ? new SubjectReader.Ends(null, null)
                    : r.characteristic() != null && r.characteristic().test() == Characteristic.ProbeTest.UTILIZATION
                    ? interfaceEnds(r.subject()) : SubjectReader.ends(r.subject());
            Map<String, String> params = new LinkedHashMap<>(r.parameters());
            params.remove("raw"); // a reply option, not a property of stored data
            query = new SeriesQuery(r.characteristic() == null ? null : r.characteristic().test(),
                    ends.src() == null ? null : ends.src().host(), ends.dst() == null ? null : ends.dst().host(),
                    params, MAX_SERIES);
        }
        List<Series> found;
        try {
            found = archive.series(query);
        } catch (RuntimeException e) {
            log.error("archive series query failed", e);
            throw new NmwgException(ErrorCodes.MA_QUERY, "the archive could not answer: " + e.getMessage());
        }
        if (found.isEmpty()) {
            w.noData(r.metadataId(), r.eventType(), null, "No metadata in the archive matches"
                    + (query.test() == null ? "" : " " + r.characteristic().dottedName())
                    + (query.src() == null ? "" : " from " + query.src())
                    + (query.dst() == null ? "" : " to " + query.dst())
                    + (query.parameters().isEmpty() ? "" : " with parameters " + query.parameters()) + ".");
            return;
        }
        for (Series s : found) {
            List<String> eventTypes = r.eventType() != null ? List.of(r.eventType()) : eventTypesOf(s.test());
            w.series(r.metadataId(), eventTypes, s, SeriesKeys.encode(s), dataInfo);
        }
    }

    /** A series key from a client: one this archive issued, else error.ma.query. */
    private static SeriesKeys.Key seriesKey(String maKey) throws NmwgException {
        try {
            return SeriesKeys.decode(maKey);
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.MA_QUERY, e.getMessage());
        }
    }

    /** A utilization series is kept under its interface as the dst: an interface subject filters by it. */
    private static SubjectReader.Ends interfaceEnds(Element subject) throws NmwgException {
        if (!SubjectReader.hasInterface(subject)) {
            return SubjectReader.ends(subject);
        }
        return new SubjectReader.Ends(null, SubjectReader.forTest(subject, Characteristic.ProbeTest.UTILIZATION).dst());
    }

    /** The preferred eventType of every characteristic a test yields, registry order. */
    static List<String> eventTypesOf(Characteristic.ProbeTest test) {
        List<String> out = new ArrayList<>();
        for (Characteristic c : Characteristic.answeredBy(test)) {
            out.add(c.preferredEventType());
        }
        return out;
    }


    /** A subject namespace that names a tool (not base, select or topology). */
    private static boolean isToolNamespace(String ns) {
        return ns != null && !ns.equals(Namespaces.BASE) && !ns.equals(Namespaces.SELECT)
                && !ns.equals(Namespaces.TOPOLOGY);
    }

    private static String supported() {
        StringBuilder sb = new StringBuilder();
        for (Characteristic c : Characteristic.values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(c.dottedName());
        }
        return sb.toString();
    }

    private NmwgWriter errorMessage(String messageIdRef, String replyType, NmwgException e) {
        NmwgWriter w = new NmwgWriter(replyType, messageIdRef, forms, props.limits().maxAnswerFrames(), framesInFlight);
        w.status(null, e.code(), e.getMessage());
        return w;
    }

    static String replyType(String requestType) {
        return requestType.endsWith("Request")
                ? requestType.substring(0, requestType.length() - "Request".length()) + "Response"
                : "ErrorResponse";
    }

    /** A parameter a request is read by (raw, perHop, ...), malformed: error.common.parameter, not internal. */
    private static <T> T strict(java.util.function.Supplier<T> read) throws NmwgException {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            throw new NmwgException(ErrorCodes.PARAMETER, e.getMessage());
        }
    }
}
