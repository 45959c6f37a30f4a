package org.nmws.service.measure;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class MeasureConfig {

    /**
     * The shared key for authenticated responder sessions (nmws.responder-key-file), handed to
     * the engine once; checked here so that a wrong path stops the start, not the first test.
     */
    @Bean
    Object responderKey(@org.springframework.beans.factory.annotation.Value("${nmws.responder-key-file:}") String keyFile) {
        if (!keyFile.isBlank() && !java.nio.file.Files.isReadable(java.nio.file.Path.of(keyFile))) {
            throw new IllegalArgumentException("nmws.responder-key-file " + keyFile + " cannot be read");
        }
        org.nmws.probe.Probe.useResponderKey(keyFile);
        return keyFile;
    }

    @Bean
    HostEnvironment hostEnvironment() {
        return new HostEnvironment(ClockState::read);
    }

    @Bean
    RunningTests runningTests() {
        return new RunningTests();
    }

    @Bean
    TestAdmission testAdmission(NmwsProperties props) {
        return new TestAdmission(props.limits().testClients(), props.limits().testsPerClientPerMinute(), System::nanoTime);
    }

    /** Cancels tests that overrun; one named daemon thread, stopped with the context. */
    @Bean(destroyMethod = "shutdownNow")
    ScheduledExecutorService testWatchdog() {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nmws-test-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    @Bean
    MeasurementService measurementService(Archive archive, HostEnvironment host, NmwsProperties props,
                                          RunningTests running, TestAdmission admission, MeasurementKinds kinds,
                                          ScheduledExecutorService testWatchdog,
                                          org.springframework.beans.factory.ObjectProvider<TestListener> listeners) {
        return new MeasurementService(archive, host, props, running, admission, kinds, testWatchdog,
                listeners.orderedStream().toList());
    }
}
