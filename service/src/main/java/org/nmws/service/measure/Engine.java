package org.nmws.service.measure;

import java.util.Optional;
import org.nmws.probe.Probe;
import org.nmws.probe.ProbeControl;
import org.nmws.probe.ProbeSpec;

/**
 * The probe engine as kinds see it: run one test spec, and name the engine's version. The
 * native engine over JNI in the service; a fake one in unit tests, so each kind's parsing,
 * mapping and writing is tested without a network.
 */
public interface Engine {

    /**
     * Runs one test, blocking until it ends (see {@link Probe#run}).
     *
     * @throws org.nmws.probe.ProbeException for a test that could not run
     */
    <R> R run(ProbeSpec<R> spec, ProbeControl control);

    /** The engine's version, recorded with every observation. */
    String version();

    /** Why the engine cannot run tests here, or empty when it can. */
    Optional<String> unavailable();

    /** The native engine (nmprobe over JNI). */
    Engine NATIVE = new Engine() {
        @Override
        public <R> R run(ProbeSpec<R> spec, ProbeControl control) {
            return Probe.run(spec, control);
        }

        @Override
        public String version() {
            return Probe.version();
        }

        @Override
        public Optional<String> unavailable() {
            return Probe.isAvailable() ? Optional.empty()
                    : Optional.of(Probe.unavailabilityCause().map(Throwable::getMessage).orElse("unknown cause"));
        }
    };
}
