package org.nmws.service.nmwg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nmws.service.cost.CostQuery;
import org.nmws.service.cost.CostXml;
import org.nmws.service.cost.DiagnosisService;
import org.nmws.service.cost.TransferCost;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.nmwg.MetadataChains.Resolved;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Params;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.usecase.ErrorCodes;
import org.nmws.service.usecase.TransferCosts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NMWG v2's cost and diagnosis triggers (eventTypes cost/1.0 and diagnosis/1.0): the cost
 * triggers of one message that share a source and parameters are ranked together; a diagnosis
 * names why its path is slow. Answered through the use cases every dialect shares.
 */
final class AdviceTriggers {
    private static final Logger log = LoggerFactory.getLogger(AdviceTriggers.class);

    /** Null where the service does not answer them. */
    private final TransferCosts costs;
    private final DiagnosisService diagnoses;

    AdviceTriggers(TransferCosts costs, DiagnosisService diagnoses) {
        this.costs = costs;
        this.diagnoses = diagnoses;
    }

    /**
     * Cost triggers: each names one destination (its subject's dst) and, in its parameters,
     * bytes and optionally maxAge (ISO 8601 or seconds), src, refresh, timeBudget (s) and streams;
     * the triggers that share source and parameters are ranked together, each answered with its
     * cost:datum (rank among them). A MeasurementRequest refreshes stale destinations.
     */
    void cost(NmwgWriter w, List<Resolved> triggers, boolean measureRequest, Caller caller) {
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
                CostQuery q = NmwgException.strict(() -> new CostQuery(
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
    void diagnose(NmwgWriter w, Resolved r, boolean measureRequest, Caller caller) throws NmwgException {
        if (diagnoses == null) {
            throw new NmwgException(ErrorCodes.EVENT_TYPE_NOT_SUPPORTED, "this service does not answer diagnosis requests");
        }
        if (r.subject() == null) {
            throw new NmwgException(ErrorCodes.SUBJECT, "a diagnosis request needs a subject with an endPointPair");
        }
        PathSubject subject = SubjectReader.forTest(r.subject(), Characteristic.ProbeTest.TCP_STREAM);
        Map<String, String> p = r.parameters();
        only(p, "a diagnosis request", DIAGNOSIS_PARAMETERS);
        boolean measure = measureRequest || NmwgException.strict(() -> Params.bool(p, "measure"));
        java.time.Duration maxAge = NmwgException.strict(() -> duration(p.get("maxAge"), java.time.Duration.ofHours(1)));
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

}
