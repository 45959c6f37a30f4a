package org.nmws.service.kind;

import java.util.List;
import java.util.Map;
import org.nmws.probe.TcpStreamResult;
import org.nmws.probe.TcpStreamSpec;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * TCP throughput with one or more streams (TCPstream's lineage): the iperf datum bwctl
 * clients read, one per time-series bin and the TCP_INFO samples when raw, and figures.
 */
final class TcpStreamKind implements MeasurementKind<TcpParameters> {
    private static final FigureUnits UNITS = new FigureUnits()
            .of(Unit.MBIT_PER_SECOND, "throughputMbps", "sendMbps", "maxDeliveryRateMbps")
            .of(Unit.BYTES, "bytesSent", "bytesReceived")
            .of(Unit.MICROSECONDS, "meanSrttUs", "maxRttvarUs")
            .of(Unit.MILLISECONDS, "minLatenessMs", "medianLatenessMs", "p99LatenessMs", "maxLatenessMs",
                    "steadyMaxLatenessMs")
            .of(Unit.PERCENT, "rwndLimitedPercent", "sndbufLimitedPercent", "cwndLimitedPercent")
            .family(Unit.MBIT_PER_SECOND, "stream\\d+ThroughputMbps")
            .family(Unit.MICROSECONDS, "stream\\d+FinalSrttUs")
            .headline("throughputMbps", "throughputMbps", "TCP");

    /** Fills the path: anything else would bias it and be biased. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.EXCLUSIVE;
    }

    @Override
    public ProbeTest test() {
        return ProbeTest.TCP_STREAM;
    }

    @Override
    public TcpParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return TcpParameters.parse(nmwg, characteristic, c.responderPort(), c.limits().maxDuration());
    }

    @Override
    public boolean raw(TcpParameters p) {
        return p.raw();
    }

    @Override
    public Observation run(TcpParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        TcpStreamResult r = runner.probe(subject, control -> {
            TcpStreamResult result = runner.engine().run(new TcpStreamSpec(dst, p.port(), p.streams(), p.messageSize(),
                    Math.round(p.intervalSeconds() * 1e9), p.cbr(), p.windowBytes(), Math.round(p.durationSeconds() * 1e9),
                    0, Math.round(p.sampleSeconds() * 1e9), Math.round(p.timeoutSeconds() * 1e9), p.congestion()), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
        return TcpObservations.of(subject, p, r, runner);
    }

    @Override
    public Unit unit(String figure) {
        return UNITS.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return UNITS.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.RESPONDER;
    }
}
