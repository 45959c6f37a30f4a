package org.nmws.service.kind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.namespace.QName;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Namespaces;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * Interface utilization from this host's counters (/sys/class/net), sampled every interval
 * as an SNMP MA collects IF-MIB counters: passive, nothing is sent. The subject names the
 * interface. Answered as SNMP-MA nmwg:datums, one per interval and direction.
 */
final class UtilizationKind implements MeasurementKind<UtilizationParameters> {
    private static final QName DIRECTION = new QName(Namespaces.NMWS_RESULT, "direction", "nmws");
    /** Worked out from the interface counters the service reads itself (no engine result to read them from). */
    private static final FigureTable<Record> FIGURES = new FigureTable<>(Record.class)
            .computed(Unit.MBIT_PER_SECOND, "outMbps", "inMbps", "maxOutMbps", "maxInMbps", "speedMbps")
            .computed(Unit.PERCENT, "outUtilizationPercent", "inUtilizationPercent")
            .computed(Unit.NONE, "outPackets", "inPackets", "outErrors", "inErrors", "outDiscards", "inDiscards", "samples");

    /** Reads interface counters and sends nothing. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.BACKGROUND;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.UTILIZATION;
    }

    @Override
    public UtilizationParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return UtilizationParameters.parse(nmwg, c.limits().maxDuration());
    }

    @Override
    public boolean raw(UtilizationParameters p) {
        return true; // the intervals are the answer
    }

    @Override
    public Observation run(UtilizationParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String ifName;
        try {
            ifName = InterfaceCounters.checkName(subject.dst().host());
        } catch (IllegalArgumentException e) {
            throw new MeasurementException(MeasurementException.Kind.SUBJECT, e.getMessage());
        }
        int intervals = (int) Math.max(1, Math.round(p.durationSeconds() / p.intervalSeconds()));
        long step = Math.round(p.intervalSeconds() * 1e9);
        List<InterfaceCounters.Sample> samples = runner.passive(ifName, entry -> {
            List<InterfaceCounters.Sample> out = new ArrayList<>(intervals + 1);
            try {
                out.add(InterfaceCounters.read(ifName));
                long start = out.get(0).monoNanos();
                for (int i = 1; i <= intervals && !entry.cancelled(); i++) {
                    entry.progress(i - 1, intervals);
                    long wait = start + i * step - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    out.add(InterfaceCounters.read(ifName));
                }
            } catch (IOException e) {
                throw new MeasurementException(MeasurementException.Kind.FAILED,
                        "reading the counters of " + ifName + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MeasurementException(MeasurementException.Kind.FAILED, "interrupted sampling " + ifName);
            }
            if (entry.cancelled()) {
                throw new MeasurementException(MeasurementException.Kind.FAILED, "test " + entry.id() + " on " + ifName
                        + " was cancelled before it ended; nothing was kept");
            }
            return out;
        });
        return UtilizationObservations.of(subject, ifName, p, samples, InterfaceCounters.speedMbps(ifName),
                runner);
    }

    @Override
    public Unit unit(String figure) {
        return FIGURES.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return FIGURES.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.NONE;
    }
}
