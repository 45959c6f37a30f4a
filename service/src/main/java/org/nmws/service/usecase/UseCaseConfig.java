package org.nmws.service.usecase;

import org.nmws.service.cost.CostService;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Forwarder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class UseCaseConfig {

    @Bean
    Measure measure(MeasurementService measurements, Forwarder forwarder, ObjectProvider<Schedules> schedules) {
        return new Measure(measurements, forwarder, schedules.getIfAvailable(() -> Schedules.NONE));
    }

    @Bean
    TransferCosts transferCosts(CostService costs, Forwarder forwarder, MeasurementService measurements) {
        return new TransferCosts(costs, forwarder, measurements);
    }
}
