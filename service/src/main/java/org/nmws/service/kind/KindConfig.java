package org.nmws.service.kind;

import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.nmwg.DataForms;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The kinds table, as the measurement service and the NMWG writer see it. */
@Configuration(proxyBeanMethods = false)
class KindConfig {

    @Bean
    MeasurementKinds measurementKinds() {
        return Kinds.measurementKinds();
    }

    @Bean
    DataForms dataForms() {
        return Kinds.dataForms();
    }
}
