package org.nmws.service.cost;

import java.time.Clock;
import org.nmws.service.archive.Archive;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class CostConfig {

    @Bean
    CostService costService(Archive archive, org.nmws.service.measure.MeasurementService measurements) {
        return new CostService(archive, Clock.systemUTC(), measurements);
    }

    @Bean
    DiagnosisService diagnosisService(Archive archive, org.nmws.service.measure.MeasurementService measurements) {
        return new DiagnosisService(archive, Clock.systemUTC(), measurements);
    }
}
