package org.nmws.service.v1;

import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.measure.MeasurementService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class V1Config {

    @Bean
    V1Service v1Service(MeasurementService measurements, org.nmws.service.usecase.Measure measure, Archive archive,
                        NmwsProperties props) {
        return new V1Service(measurements, measure, archive, props);
    }

    @Bean
    V1Codec v1Codec(V1Service service, NmwsProperties props) {
        return new V1Codec(service, props.limits().maxMeasurementsPerMessage());
    }
}
