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
    /** The figures TCPstream users read; TcpObservations builds the summary from them. */
    static final FigureTable<TcpStreamResult> FIGURES = new FigureTable<>(TcpStreamResult.class)
            .of(Unit.NONE, "streams")
            .of(Unit.MBIT_PER_SECOND, "throughputMbps", "sendMbps")
            .of(Unit.BYTES, "bytesSent", "bytesReceived")
            .of(Unit.NONE, "receiverSeconds", "retransmits=totalRetransmits")
            // what held the senders back while data was in flight (TCP_INFO, Linux 4.10+)
            .computed(Unit.PERCENT, "rwndLimitedPercent", "sndbufLimitedPercent", "cwndLimitedPercent")
            .each("stream", TcpStreamResult::perStream, TcpStreamResult.PerStream.class, null, Unit.MBIT_PER_SECOND,
                    "ThroughputMbps=receiveMbps")
            .each("stream", TcpStreamResult::perStream, TcpStreamResult.PerStream.class, null, Unit.BYTES,
                    "BytesReceived=bytesReceived")
            .each("stream", TcpStreamResult::perStream, TcpStreamResult.PerStream.class, null, Unit.NONE,
                    "Retransmits=totalRetransmits")
            .each("stream", TcpStreamResult::perStream, TcpStreamResult.PerStream.class, null, Unit.MICROSECONDS,
                    "FinalSrttUs=finalSrttMicros")
            // over the TCP_INFO samples
            .computed(Unit.NONE, "tcpInfoSamples", "maxCwndSegments")
            .computed(Unit.MICROSECONDS, "meanSrttUs", "maxRttvarUs")
            .computed(Unit.MBIT_PER_SECOND, "maxDeliveryRateMbps")
            // constant bit rate: how late each message arrived against its schedule
            // (kept only when CBR was asked for: a parameter, so the kind's rule, not the table's)
            .computed(Unit.NONE, "messages")
            .computed(Unit.MILLISECONDS, "minLatenessMs", "medianLatenessMs", "p99LatenessMs", "maxLatenessMs",
                    "steadyMaxLatenessMs")
            .headline("throughputMbps", "throughputMbps", "TCP")
            .chart("throughputMbps", "throughputMbps", "TCP");

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
        return FIGURES.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return FIGURES.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.RESPONDER;
    }
}
