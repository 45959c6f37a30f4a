package org.nmws.service.measure;

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

    @Bean
    MeasurementService measurementService(Archive archive, HostEnvironment host, NmwsProperties props,
                                          RunningTests running, TestAdmission admission) {
        return new MeasurementService(archive, host, props, running, admission);
    }
}
