package org.nmws.service.measure;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.nmws.service.NmwsProperties;
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

    /**
     * The key file of authenticated STAMP tests (nmws.key-file: owampd's pfs format, a
     * "KEYID HEXKEY" line per key, mode 600), handed to the engine once; a request names a key id
     * (authMode=authenticated, keyId), never the key. Checked here so that a wrong path or a file
     * others may read stops the start, not the first test.
     */
    @Bean
    Object stampKeys(@org.springframework.beans.factory.annotation.Value("${nmws.key-file:}") String keyFile)
            throws java.io.IOException {
        if (!keyFile.isBlank()) {
            java.nio.file.Path path = java.nio.file.Path.of(keyFile);
            if (!java.nio.file.Files.isReadable(path)) {
                throw new IllegalArgumentException("nmws.key-file " + keyFile + " cannot be read");
            }
            java.util.Set<java.nio.file.attribute.PosixFilePermission> perms = java.nio.file.Files.getPosixFilePermissions(path);
            perms.retainAll(java.util.EnumSet.of(java.nio.file.attribute.PosixFilePermission.GROUP_READ,
                    java.nio.file.attribute.PosixFilePermission.GROUP_WRITE, java.nio.file.attribute.PosixFilePermission.OTHERS_READ,
                    java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE));
            if (!perms.isEmpty()) {
                throw new IllegalArgumentException("nmws.key-file " + keyFile
                        + ": group or others may read or write it (chmod 600 it)");
            }
        }
        org.nmws.probe.Probe.useStampKeys(keyFile);
        return keyFile;
    }

    /**
     * The host description; its clock is read before every test, and asks the ptp4l at
     * nmws.clock.ptp-socket (default /var/run/ptp4l) for the clock's PTP state. The engine keeps
     * that socket for the one-way tests' own clock readings.
     */
    @Bean
    HostEnvironment hostEnvironment(@org.springframework.beans.factory.annotation.Value("${nmws.clock.ptp-socket:}") String ptpSocket) {
        String socket = ptpSocket.isBlank() ? null : ptpSocket;
        // read once now: the engine takes the socket from this reading for the first test's own clock too
        ClockState.read(socket);
        return new HostEnvironment(() -> ClockState.read(socket));
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
    MeasurementService measurementService(org.nmws.service.archive.ResultKeeper keeper, HostEnvironment host, NmwsProperties props,
                                          RunningTests running, TestAdmission admission, MeasurementKinds kinds,
                                          ScheduledExecutorService testWatchdog,
                                          org.springframework.beans.factory.ObjectProvider<TestListener> listeners) {
        return new MeasurementService(keeper, host, props, running, admission, kinds, testWatchdog,
                listeners.orderedStream().toList(), Engine.NATIVE);
    }
}
