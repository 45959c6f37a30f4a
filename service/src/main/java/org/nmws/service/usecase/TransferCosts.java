package org.nmws.service.usecase;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nmws.service.cost.CostQuery;
import org.nmws.service.cost.CostService;
import org.nmws.service.cost.CostXml;
import org.nmws.service.cost.TransferCost;
import org.nmws.service.measure.Caller;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Endpoint;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.Params;
import org.w3c.dom.Element;

/**
 * What a transfer would cost, from any dialect (NMWG, the WSDL's transferCost, XML-RPC, JSON):
 * a refresh needs the measure role and is refused before anything is asked; a source that is
 * another mesh point is asked of that point, destination by destination within the client's
 * time budget, and ranked here; else this point's archive answers.
 */
public final class TransferCosts {
    private final CostService costs;
    private final Forwarder forwarder;
    private final MeasurementService measurements;

    public TransferCosts(CostService costs, Forwarder forwarder, MeasurementService measurements) {
        this.costs = costs;
        this.forwarder = forwarder;
        this.measurements = measurements;
    }

    public List<TransferCost> rank(Caller caller, CostQuery q) throws MeasurementException {
        if (q.refresh()) {
            try {
                caller.requireMeasure();
            } catch (MeasurementException e) {
                throw new MeasurementException(e.kind(), "refresh asks for tests: " + e.getMessage(), e);
            }
        }
        Optional<Mesh.Point> remote = q.src() == null ? Optional.empty() : forwarder.remote(q.src());
        if (remote.isPresent() && caller.forwardedBy() == null) {
            return forwarded(caller, remote.get(), q);
        }
        return costs.rank(caller, q);
    }

    /**
     * Costs from another point of the mesh: each destination asked of that point (it answers
     * from its own archive, refreshing there if asked), ranked here.
     */
    private List<TransferCost> forwarded(Caller caller, Mesh.Point point, CostQuery q) {
        Map<String, String> params = parameters(q);
        List<TransferCost> out = new ArrayList<>();
        // the client's budget holds for the whole answer: each destination asked gets its share of
        // what is left, and none is asked once it is spent (a point takes at most its share to refresh)
        long deadline = System.nanoTime() + q.timeBudget().toNanos();
        List<String> dsts = q.destinations();
        for (int i = 0; i < dsts.size(); i++) {
            String dst = dsts.get(i);
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                out.add(TransferCost.unknown(point.name(), dst, (long) q.bytes(),
                        "not asked of " + point.name() + ": the time budget is spent"));
                continue;
            }
            params.put("timeBudget", Params.plain(Math.max(1, left / 1e9 / (dsts.size() - i))));
            // A refresh there runs a test on this point's credentials: the caller must be allowed
            // it here (networks, limits) and is charged for it; else the point is asked for its
            // stored answer only.
            String refusal = null;
            MeasurementService.Charge charge = null;
            if (q.refresh()) {
                try {
                    measurements.check(caller, Characteristic.PATH_BANDWIDTH_ACHIEVABLE_TCP,
                            new PathSubject(null, Endpoint.parse(dst, null)), refreshTest(q));
                    charge = measurements.charge(caller);
                } catch (MeasurementException | IllegalArgumentException e) {
                    refusal = "not refreshed: " + e.getMessage();
                }
            }
            Map<String, String> asked = new LinkedHashMap<>(params);
            if (refusal != null) {
                asked.remove("refresh");
            }
            TransferCost c;
            try {
                Element answer = forwarder.forward(point, "SetupDataRequest", Namespaces.COST, Endpoint.parse(dst, null), asked);
                org.w3c.dom.NodeList datums = answer.getElementsByTagNameNS(Namespaces.COST, "datum");
                c = datums.getLength() > 0 ? CostXml.fromDatum((Element) datums.item(0), point.name())
                        : TransferCost.unknown(point.name(), dst, (long) q.bytes(),
                                point.name() + " answered no cost: " + answer.getTextContent().trim());
                // ranked under the name asked for, whatever spelling the point answered with
                c = c.forDestination(dst);
            } catch (Forwarder.ForwardException e) {
                c = TransferCost.unknown(point.name(), dst, (long) q.bytes(), e.getMessage());
            }
            if (charge != null) {
                if (!c.refreshed()) {
                    charge.refund(); // no test ran there
                }
                charge.close();
            }
            if (refusal != null) {
                c = c.withRefresh(false, refusal);
            }
            out.add(c);
        }
        out.sort(Comparator.comparing(TransferCost::seconds, Comparator.nullsLast(Comparator.naturalOrder())));
        return out;
    }

    /** The TCP test a refresh runs, as the caller's limits are checked against it. */
    private static Map<String, String> refreshTest(CostQuery q) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("timeDuration", "5");
        p.put("streams", Integer.toString(q.streams()));
        if (q.port() != null) {
            p.put("port", Integer.toString(q.port()));
        }
        return p;
    }

    /** The query as the NMWG cost parameters another point reads (no src: that point measures from itself). */
    static Map<String, String> parameters(CostQuery q) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("bytes", Params.plain(q.bytes()));
        p.put("maxAge", q.maxAge().toString());
        if (q.refresh()) {
            p.put("refresh", "true");
        }
        p.put("streams", Integer.toString(q.streams()));
        if (q.port() != null) {
            p.put("port", Integer.toString(q.port()));
        }
        if (q.protocol() != null) {
            p.put("protocol", q.protocol());
        }
        return p;
    }
}
