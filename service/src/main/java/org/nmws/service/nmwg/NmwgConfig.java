package org.nmws.service.nmwg;

import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.cost.DiagnosisService;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.usecase.Measure;
import org.nmws.service.usecase.TransferCosts;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class NmwgConfig {

    @Bean
    SafeXml safeXml(NmwsProperties props) {
        return new SafeXml(props.xml().maxBytes(), props.xml().maxDepth());
    }

    @Bean
    DataForms dataForms(org.nmws.service.measure.MeasurementKinds kinds) {
        return new DataForms(kinds);
    }

    /** Other points' answers are parsed as carefully as any client's request. */
    @Bean
    Forwarder forwarder(Mesh mesh, MeasurementService measurements, SafeXml xml, NmwsProperties props,
                        @Value("${nmws.mesh.forward-margin:PT30S}") java.time.Duration margin) {
        // A forwarded test may take as long as a test may run, plus the set-up and answer.
        return new Forwarder(mesh, measurements.measurementPoint(), xml::parse,
                props.limits().maxDuration().plus(margin), props.xml().maxBytes());
    }

    @Bean
    MessageHandler messageHandler(SafeXml xml, MeasurementService measurements, Archive archive, NmwsProperties props,
                                  DataForms forms, Measure measure, TransferCosts costs, DiagnosisService diagnoses) {
        return new MessageHandler(xml, measurements, archive, props, forms, measure, costs, diagnoses);
    }
}
