package org.nmws.service.nmwg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.cost.DiagnosisService;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.TestBudget;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.nmwg.MetadataChains.Resolved;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.ErrorCodes;
import org.nmws.service.usecase.Measure;
import org.nmws.service.usecase.Schedules;
import org.nmws.service.usecase.StoredResults;
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

    private final SafeXml xml;
    private final NmwgReader reader = new NmwgReader();
    private final MeasurementService measurements;
    private final Archive archive;
    private final NmwsProperties props;
    private final DataForms forms;
    private final Measure measure;
    private final StoredAnswers stored;
    private final AdviceTriggers advice;
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
        this.advice = new AdviceTriggers(costs, diagnoses);
        this.stored = new StoredAnswers(new StoredResults(archive), measurements);
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

    /**
     * A message element already parsed by a SOAP stack, the answer out as a source the stack
     * writes straight to the response (no DOM of the answer). The frames the answer holds are
     * given back when it is handed over, as {@link #handle(Element, Caller)} gives them back
     * before its DOM is written out.
     */
    public javax.xml.transform.Source handleToSource(Element message, Caller caller) {
        try {
            xml.checkDepth(message);
            NmwgWriter w = answer(reader.read(message), caller);
            try {
                return w.toSource();
            } finally {
                w.release();
            }
        } catch (NmwgException e) {
            return errorMessage(null, "ErrorResponse", e).toSource();
        }
    }

    /**
     * A message element already parsed (the SOAP fast path's body), the answer written into out
     * after what the transport wrote there (its envelope's start): no answer held whole.
     */
    public void handleTo(Element message, Caller caller, java.io.OutputStream out) {
        NmwgWriter w;
        try {
            xml.checkDepth(message);
            w = answer(reader.read(message), caller);
        } catch (NmwgException e) {
            w = errorMessage(null, "ErrorResponse", e);
        }
        try {
            w.writeFragmentTo(out);
        } finally {
            w.release();
        }
    }

    private static byte[] written(NmwgWriter w) {
        try {
            return w.toBytes();
        } finally {
            w.release();
        }
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
                Resolved r = MetadataChains.resolve(data, byId, !listing);
                if (r.advice() != null && !listing) {
                    // the destinations of one message are ranked together, after every trigger is read
                    if (r.advice().equals(Namespaces.COST)) {
                        costTriggers.add(r);
                    } else {
                        advice.diagnose(w, r, msg.type().equals("MeasurementRequest"), caller);
                    }
                    continue;
                }
                switch (msg.type()) {
                    case "MeasurementRequest" -> measure(w, r, caller);
                    case "MetadataKeyRequest" -> stored.describeSeries(w, r, false);
                    case "DataInfoRequest" -> stored.describeSeries(w, r, true);
                    default -> stored.setupData(w, r);
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
            try {
                advice.cost(w, costTriggers, msg.type().equals("MeasurementRequest"), caller);
            } catch (RuntimeException e) {
                w.release(); // the frames the other pairs took go back to the budget with the answer that failed
                throw e;
            }
        }
        return w;
    }

    private void measure(NmwgWriter w, Resolved r, Caller caller) throws NmwgException {
        if (r.subject() == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "MeasurementRequest needs a subject with an endPointPair");
        }
        if (r.characteristic() == null) {
            throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "MeasurementRequest names no eventType to measure; supported: "
                    + MetadataChains.supported());
        }
        PathSubject subject = SubjectReader.forTest(r.subject(), NmwgException.strict(() -> r.characteristic().testFor(r.parameters())));
        boolean packed = FrameColumns.packed(r.parameters()); // refused before the test runs, not after
        Measure.Outcome outcome;
        try {
            outcome = measure.measure(caller, r.characteristic(), r.eventType(), subject, r.parameters());
        } catch (MeasurementException e) {
            throw new NmwgException(ErrorCodes.of(e.kind()), e.getMessage(), e);
        }
        if (outcome instanceof Measure.Ran ran) {
            w.observation(r.metadataId(), r.eventType(), ran.observation(), ran.raw(), packed, ran.maKey());
            if (ran.held()) {
                w.status(r.metadataId(), ErrorCodes.SUCCESS_MA_PENDING, "the archive could not keep this result now; it is"
                        + " held at this measurement point and written to the archive, once, when the archive returns;"
                        + " its maKey " + ran.maKey() + " finds it there then");
            }
        } else if (outcome instanceof Measure.Forwarded f) {
            w.imported(r.metadataId(), f.message(), f.point());
        } else if (outcome instanceof Measure.Scheduled sc) {
            w.status(r.metadataId(), ErrorCodes.SUCCESS_SCHEDULE, sc.description());
        }
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
}
