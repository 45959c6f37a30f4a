package org.nmws.service.cost;

import java.time.Clock;
import org.nmws.service.archive.Archive;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class CostConfig {

    @Bean
    CostService costService(Archive archive) {
        return new CostService(archive, Clock.systemUTC());
    }
}
