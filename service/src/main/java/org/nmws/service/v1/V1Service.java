package org.nmws.service.v1;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.xml.parsers.ParserConfigurationException;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.SeriesKeys;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Numbers;
import org.nmws.service.observation.Observation;
import org.nmws.service.usecase.ErrorCodes;
import org.nmws.service.usecase.Measure;
import org.nmws.service.usecase.StoredResults;
import org.w3c.dom.Document;
import org.w3c.dom.Node;

/**
 * Answers v1 requests (and the XML-RPC requests shaped like them) from the same core as
 * NMWG v2: stored results from the archive, a new test from the measurement service, and
 * their failures by kind as v1 faults. The dialect is a codec: no characteristic, policy or
 * store is decided here.
 */
public class V1Service {

    private final MeasurementService measurements;
    private final Measure measure;
    private final StoredResults stored;
    private final double retryDelaySeconds;

    public V1Service(MeasurementService measurements, Measure measure, Archive archive, NmwsProperties props) {
        this.measurements = measurements;
        this.measure = measure;
        this.stored = new StoredResults(archive);
        // A busy path is held by one test at most this long: the honest wait before retrying.
        this.retryDelaySeconds = props.limits().maxDuration().toSeconds();
    }

    /**
     * Stored results in the request's window first; a new measurement when there are none
     * (or no window was asked) and the client allows it.
     */
    public V1Outcome execute(V1Request r, Caller caller) {
        try {
            Optional<Characteristic> found = Characteristic.lookup(r.characteristic());
            if (found.isEmpty() || !r.characteristic().contains(".")) {
                throw new V1Fault(V1Fault.Kind.Discovery, ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "characteristic '"
                        + r.characteristic() + "' is not measured here; known: " + known(), 0);
            }
            Characteristic c = found.get();
            boolean windowAsked = r.from() != null || r.to() != null;
            if (windowAsked || !r.allowNewMeasurements()) {
                List<V1Outcome.Measurement> stored = stored(c, r);
                if (!stored.isEmpty()) {
                    int from = Math.max(0, stored.size() - r.maxResults());
                    return new V1Outcome(r, statistics(r, stored.subList(from, stored.size())), false, null);
                }
                boolean windowReachesNow = r.to() == null || !r.to().isBefore(Instant.now());
                if (!r.allowNewMeasurements() || !windowReachesNow) {
                    throw new V1Fault(V1Fault.Kind.NoData, null, "no " + r.characteristic() + " measurements to "
                            + r.subject().dst().host() + " in the archive" + window(r)
                            + (r.allowNewMeasurements() ? "" : ", and allowNewMeasurements is false"), 0);
                }
            }
            return new V1Outcome(r, statistics(r, List.of(measured(c, r, caller))), true, null);
        } catch (V1Fault f) {
            return V1Outcome.failed(r, f);
        }
    }

    /**
     * A new test, kept in the archive (here, or at the mesh point the source names); its
     * failure as a fault of its kind.
     */
    private V1Outcome.Measurement measured(Characteristic c, V1Request r, Caller caller) throws V1Fault {
        if (r.parameters().keySet().stream().anyMatch(k -> k.startsWith("schedule."))) {
            throw new V1Fault(V1Fault.Kind.Request, "a v1 request runs a test once; make schedules with NMWG v2 "
                    + "schedule.* parameters or at /api/schedules");
        }
        Measure.Outcome outcome;
        try {
            outcome = measure.measure(caller, c, c.preferredEventType(), r.subject(), r.parameters());
        } catch (MeasurementException e) {
            throw fault(e.kind(), e.getMessage());
        }
        if (outcome instanceof Measure.Ran ran) {
            return measurement(ran.observation(), ran.maKey());
        }
        if (outcome instanceof Measure.Forwarded f) {
            return ForwardedAnswer.measurement(f.point(), f.message());
        }
        throw new V1Fault(V1Fault.Kind.Request, "not a test: " + ((Measure.Scheduled) outcome).description());
    }

    /**
     * Stored results of the characteristic's test on the path, in the window: one per series
     * (same test, path and parameters), the series' latest, with the series' maKey.
     */
    private List<V1Outcome.Measurement> stored(Characteristic c, V1Request r) throws V1Fault {
        List<Observation> found;
        try {
            // the test the request's parameters select (protocol=STAMP, packetSizes, perHop), as NMWG reads it
            Characteristic.ProbeTest test = c.testFor(r.parameters());
            String src = r.subject().src() == null ? null : r.subject().src().host();
            StoredResults.Found page = stored.find(new ObservationQuery(test, r.subject().dst().host(), src, r.from(),
                    r.to(), false, StoredResults.MAX_RESULTS), o -> { });
            found = page.cut() ? latestOfEachSeries(test, src, r) : page.results();
        } catch (IllegalArgumentException e) {
            throw new V1Fault(V1Fault.Kind.Request, ErrorCodes.PARAMETER, e.getMessage(), 0);
        } catch (StoredResults.Unavailable e) {
            throw new V1Fault(V1Fault.Kind.System, ErrorCodes.MA_QUERY, e.getMessage(), 0);
        }
        List<V1Outcome.Measurement> out = new ArrayList<>();
        for (List<Observation> group : StoredResults.bySeries(found)) {
            out.add(measurement(group.get(group.size() - 1), SeriesKeys.of(group)));
        }
        return out;
    }

    /**
     * v1 answers a series by its latest result: when the newest results alone do not cover every
     * series (an answer cut at its limit), each series is asked for its own latest instead, so
     * an older series is never left out unsaid.
     */
    private List<Observation> latestOfEachSeries(Characteristic.ProbeTest test, String src, V1Request r) {
        List<Observation> latest = new ArrayList<>();
        for (org.nmws.service.archive.Series s : stored.series(new org.nmws.service.archive.SeriesQuery(test, src,
                r.subject().dst().host(), Map.of(), StoredResults.MAX_SERIES))) {
            latest.addAll(stored.find(new ObservationQuery(test, s.subject().dst().host(),
                    s.subject().src() == null ? null : s.subject().src().host(), r.from(), r.to(), false, 1,
                    s.parameters(), s.measurementPoint()), o -> { }).results());
        }
        latest.sort(java.util.Comparator.comparing(Observation::start));
        return latest;
    }

    /** An observation as v1 reports it: its figures (with the units its kind declares) and environment. */
    private V1Outcome.Measurement measurement(Observation o, String maKey) {
        MeasurementKind<?> kind = measurements.kind(o.test());
        Map<String, Double> stats = new LinkedHashMap<>();
        Map<String, String> units = new LinkedHashMap<>();
        for (Map.Entry<String, Double> e : o.summary().entrySet()) {
            stats.put(e.getKey(), Numbers.significant(e.getValue()));
            String label = kind.unit(e.getKey()).label();
            if (label != null) {
                units.put(e.getKey(), label);
            }
        }
        return new V1Outcome.Measurement(o.tool(), o.toolVersion(), o.start(), o.end(), o.parameters(), stats, units,
                org.nmws.service.observation.EnvironmentXml.element(o), maKey);
    }

    /** A failure's kind as a v1 fault kind, with the NMWG code every other dialect answers. */
    public V1Fault fault(MeasurementException.Kind kind, String text) {
        V1Fault.Kind v1 = switch (kind) {
            case BUSY, RATE_LIMITED -> V1Fault.Kind.TryAgain;
            case FAILED -> V1Fault.Kind.Communication;
            case DENIED -> V1Fault.Kind.Authorisation;
            case PARAMETER, SUBJECT -> V1Fault.Kind.Request;
            case UNAVAILABLE, STORAGE -> V1Fault.Kind.System;
        };
        return new V1Fault(v1, ErrorCodes.of(kind), text, v1 == V1Fault.Kind.TryAgain ? retryDelaySeconds : 0);
    }

    /**
     * Keeps the statistics the request asked for: a name matches a figure of that name or a
     * figure it prefixes (min: minRtt, minIpd; loss: lossPercent). A name matching nothing
     * is a Request fault naming what there is.
     */
    static List<V1Outcome.Measurement> statistics(V1Request r, List<V1Outcome.Measurement> ms) throws V1Fault {
        if (r.statistics().isEmpty() || ms.isEmpty()) {
            return List.copyOf(ms);
        }
        for (String asked : r.statistics()) {
            if (ms.get(0).statistics().keySet().stream().noneMatch(f -> matches(f, asked))) {
                throw new V1Fault(V1Fault.Kind.Request, "statistic '" + asked + "' is not available for "
                        + r.characteristic() + "; available: " + String.join(", ", ms.get(0).statistics().keySet()));
            }
        }
        List<V1Outcome.Measurement> out = new ArrayList<>(ms.size());
        for (V1Outcome.Measurement m : ms) {
            Map<String, Double> kept = new LinkedHashMap<>();
            m.statistics().forEach((f, v) -> {
                if (r.statistics().stream().anyMatch(a -> matches(f, a))) {
                    kept.put(f, v);
                }
            });
            out.add(new V1Outcome.Measurement(m.tool(), m.toolVersion(), m.start(), m.end(), m.parameters(), kept,
                    m.units(), m.environment(), m.maKey()));
        }
        return out;
    }

    static boolean matches(String figure, String asked) {
        String f = figure.toLowerCase(Locale.ROOT);
        String a = asked.toLowerCase(Locale.ROOT);
        return f.equals(a) || f.startsWith(a) && Character.isUpperCase(figure.charAt(asked.length()));
    }

    private static String window(V1Request r) {
        return (r.from() == null ? "" : " from " + r.from()) + (r.to() == null ? "" : " to " + r.to());
    }

    private static String known() {
        List<String> names = new ArrayList<>();
        for (Characteristic c : Characteristic.values()) {
            names.add(c.dottedName());
        }
        return String.join(", ", names);
    }

    static Document newDocument() {
        try {
            // a new document to write a report into: nothing is parsed, so no hardening is needed
            javax.xml.parsers.DocumentBuilderFactory f = javax.xml.parsers.DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            return f.newDocumentBuilder().newDocument();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean isElement(Node n) {
        return n.getNodeType() == Node.ELEMENT_NODE;
    }
}
