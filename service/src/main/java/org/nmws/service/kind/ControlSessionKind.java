package org.nmws.service.kind;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nmws.probe.OwampResult;
import org.nmws.service.measure.FarEnd;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementException;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * What OWAMP and TWAMP share: a control session to a standard server that agrees on it (so no
 * test packet leaves before it accepted), the same parameters, a key file kept on this point,
 * and packets of a small fixed header plus padding.
 */
abstract class ControlSessionKind implements MeasurementKind<ControlSessionParameters> {
    /** Test packet header octets before the padding (RFC 4656 4.1.2, RFC 5357 4.1.2): 14 open, 48 otherwise. */
    private static final int OPEN_HEADER = 14;
    private static final int AUTH_HEADER = 48;

    private final boolean twamp;
    private final FigureTable<OwampResult> figures;
    final Path keyFile;

    ControlSessionKind(boolean twamp, FigureTable<OwampResult> figures, Path keyFile) {
        this.twamp = twamp;
        this.figures = figures;
        this.keyFile = keyFile;
    }

    /** A few small packets per interval: runs beside other tests, as STAMP does. */
    @Override
    public TestClass testClass(Characteristic c) {
        return TestClass.BACKGROUND;
    }

    @Override
    public ControlSessionParameters parse(Map<String, String> nmwg, Characteristic characteristic, Context c) {
        return ControlSessionParameters.parse(nmwg, twamp, keyFile, c.limits().maxCount(), c.limits().maxDuration());
    }

    @Override
    public boolean raw(ControlSessionParameters p) {
        return p.raw();
    }

    /** Runs the session to the subject's destination through the engine. */
    OwampResult session(ControlSessionParameters p, PathSubject subject, TestRunner runner) throws MeasurementException {
        String dst = subject.dst().host();
        return runner.probe(subject, control -> {
            OwampResult result = runner.engine().run(p.spec(dst, keyFile), control);
            return new TestRunner.Outcome<>(result, result.cancelled());
        });
    }

    /** One frame a packet: its number, send time, delay (one way or round trip) or lost, size and TTL. */
    static List<Observation.Frame> frames(ControlSessionParameters p, OwampResult r) {
        OwampResult.Frames f = r.frames();
        int bytes = p.padding() + (p.mode().equals("open") ? OPEN_HEADER : AUTH_HEADER);
        List<Observation.Frame> frames = new ArrayList<>(f.size());
        for (int i = 0; i < f.size(); i++) {
            long v = f.valueNanos()[i];
            frames.add(new Observation.Frame(f.seq()[i], f.sendEpochNanos()[i], v < 0 ? Observation.Frame.LOST : v,
                    bytes, f.ttl().length > i ? f.ttl()[i] : -1));
        }
        return frames;
    }

    @Override
    public Unit unit(String figure) {
        return figures.unit(figure);
    }

    @Override
    public List<Figure> figures() {
        return figures.figures();
    }

    @Override
    public FarEnd farEnd() {
        return FarEnd.OWAMP_TWAMP_SERVER;
    }
}
