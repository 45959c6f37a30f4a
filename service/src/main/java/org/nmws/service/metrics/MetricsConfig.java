package org.nmws.service.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Gauge;
import org.nmws.service.measure.RunningTests;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Test and scheduler metrics, served at /actuator/prometheus to clients with the read role
 * (anonymous clients have it unless nmws.security.anonymous-roles says otherwise).
 */
@Configuration(proxyBeanMethods = false)
class MetricsConfig {

    @Bean
    TestMetrics testMetrics(MeterRegistry registry, @Value("${nmws.metrics.max-paths:100}") int maxPaths,
                            org.nmws.service.measure.MeasurementKinds kinds) {
        return new TestMetrics(registry, maxPaths, new PathFigures(kinds));
    }

    /** Tests running now, on demand and scheduled. */
    @Bean
    Gauge runningTestsGauge(MeterRegistry registry, RunningTests running) {
        return Gauge.builder("nmws.tests.running", running, r -> r.list().size())
                .description("tests running now").register(registry);
    }
}
