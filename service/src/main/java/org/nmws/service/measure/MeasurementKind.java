package org.nmws.service.measure;

import java.util.Map;
import org.nmws.service.NmwsProperties;
import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;
import org.nmws.service.observation.PathSubject;
import org.nmws.service.observation.Unit;

/**
 * One kind of test, in one place: how its NMWG parameters are read, how it runs, what its
 * result becomes, and the unit of every figure it keeps. {@link MeasurementService} keeps
 * only what every kind shares (who may test, the path lock, the watchdog, saving). Kinds
 * are stateless; they are listed once in {@code org.nmws.service.kind.Kinds}.
 *
 * @param <P> the kind's parsed parameters
 */
public interface MeasurementKind<P> {

    /** The test this kind runs (its key in the registry). */
    Characteristic.ProbeTest test();

    /**
     * Reads the NMWG parameters strictly: a malformed or out-of-range one throws
     * {@link IllegalArgumentException} naming it and what it may be.
     */
    P parse(Map<String, String> nmwg, Characteristic characteristic, Context context);

    /**
     * The scheduling class its test runs in when measuring a characteristic (what it may run
     * beside), unless a schedule says otherwise: the kind knows what it puts on the path.
     */
    TestClass testClass(Characteristic characteristic);

    /** Whether the client asked for per-frame data in the answer. */
    default boolean raw(P parameters) {
        return false;
    }

    /** Runs the test through the runner (which holds the path) and returns what it measured, not yet saved. */
    Observation run(P parameters, PathSubject subject, TestRunner runner) throws MeasurementException;

    /** The unit of a summary figure this kind keeps. */
    Unit unit(String figure);

    /** Every figure this kind keeps, with its unit and, for one that heads a grid cell, its group. */
    java.util.List<Figure> figures();

    /** What the far end of its path must run. */
    FarEnd farEnd();

    /** What parsing needs from the configuration. */
    record Context(int responderPort, NmwsProperties.Limits limits) {
    }
}
