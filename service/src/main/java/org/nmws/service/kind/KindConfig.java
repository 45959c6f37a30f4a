package org.nmws.service.kind;

import org.nmws.service.measure.MeasurementKinds;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The kinds table, as the measurement service and every dialect see it. */
@Configuration(proxyBeanMethods = false)
class KindConfig {

    @Bean
    MeasurementKinds measurementKinds() {
        return Kinds.measurementKinds();
    }
}
