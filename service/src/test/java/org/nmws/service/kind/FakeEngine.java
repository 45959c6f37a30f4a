package org.nmws.service.kind;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.nmws.probe.ProbeControl;
import org.nmws.probe.ProbeSpec;
import org.nmws.service.measure.Engine;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestClass;
import org.nmws.service.measure.TestRunner;
import org.nmws.service.observation.PathSubject;

/**
 * An engine that runs nothing: each spec a kind hands it is kept (so a test reads what the
 * kind asked the engine for) and answered with the result the test gave for its spec type,
 * so a kind's parse, run mapping and NMWG form are tested without a network or JNI.
 */
final class FakeEngine implements Engine {
    static final String VERSION = "fake-1.0";

    private final Map<Class<?>, Function<Object, Object>> answers = new HashMap<>();
    final List<ProbeSpec<?>> specs = new ArrayList<>();

    /** Answers every spec of this type with what the function makes of it. */
    <S extends ProbeSpec<R>, R> FakeEngine answer(Class<S> specType, Function<S, R> result) {
        answers.put(specType, spec -> result.apply(specType.cast(spec)));
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <R> R run(ProbeSpec<R> spec, ProbeControl control) {
        specs.add(spec);
        Function<Object, Object> f = answers.get(spec.getClass());
        if (f == null) {
            throw new AssertionError("the fake engine was not told how to answer " + spec.getClass().getSimpleName());
        }
        return (R) f.apply(spec);
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public Optional<String> unavailable() {
        return Optional.empty();
    }

    /** The spec of the one test run, of its type. */
    <S> S only(Class<S> type) {
        if (specs.size() != 1) {
            throw new AssertionError("expected one test, ran " + specs.size());
        }
        return type.cast(specs.get(0));
    }

    /**
     * Every figure of the observation's summary is one its kind declares (so it has its unit,
     * and /api/kinds lists it): a kind's figures are named once, in its table.
     */
    static void assertDeclared(org.nmws.service.measure.MeasurementKind<?> kind, org.nmws.service.observation.Observation o) {
        for (String name : o.summary().keySet()) {
            boolean declared = kind.figures().stream().anyMatch(f -> f.pattern() ? name.matches(f.name()) : f.name().equals(name));
            org.junit.jupiter.api.Assertions.assertTrue(declared, kind.test() + " keeps figure " + name + " it does not declare");
        }
    }

    /** A runner over this engine: no admission, no path lock, this host, point "mp-test", every responder agrees. */
    TestRunner runner() {
        return runner(true);
    }

    /** As {@link #runner()}, with every destination running a responder (agreeing to be measured) or none. */
    TestRunner runner(boolean responderAgrees) {
        return runner(this, responderAgrees);
    }

    /** The same runner over any engine (the native one, for tests through JNI). */
    static TestRunner runner(Engine engine, boolean responderAgrees) {
        HostEnvironment host = new HostEnvironment(() -> null);
        RunningTests running = new RunningTests();
        return new TestRunner() {
            @Override
            public <T> T probe(PathSubject subject, ProbeCall<T> call) {
                return call.run(new ProbeControl()).result();
            }

            @Override
            public <T> T passive(String target, PassiveCall<T> call) throws org.nmws.service.measure.MeasurementException {
                RunningTests.Entry entry = running.start("passive", target, null, TestClass.BACKGROUND);
                try {
                    return call.run(entry);
                } finally {
                    running.finish(entry);
                }
            }

            @Override
            public boolean responderAgrees(PathSubject subject, int port) {
                return responderAgrees;
            }

            @Override
            public Engine engine() {
                return engine;
            }

            @Override
            public HostEnvironment host() {
                return host;
            }

            @Override
            public String measurementPoint() {
                return "mp-test";
            }
        };
    }
}
