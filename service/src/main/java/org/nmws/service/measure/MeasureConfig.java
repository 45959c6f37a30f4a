package org.nmws.service.measure;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class MeasureConfig {

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
                                          ScheduledExecutorService testWatchdog) {
        return new MeasurementService(archive, host, props, running, admission, kinds, testWatchdog);
    }
}
