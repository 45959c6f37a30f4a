package org.nmws.service.nmwg;

import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.Archive;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Forwarder;
import org.nmws.service.mesh.Mesh;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class NmwgConfig {

    @Bean
    SafeXml safeXml(NmwsProperties props) {
        return new SafeXml(props.xml().maxBytes(), props.xml().maxDepth());
    }

    @Bean
    MessageHandler messageHandler(SafeXml xml, MeasurementService measurements, Archive archive, NmwsProperties props,
                                  DataForms forms, Mesh mesh, org.springframework.beans.factory.ObjectProvider<Schedules> schedules,
                                  org.nmws.service.cost.CostService costs, org.nmws.service.cost.DiagnosisService diagnoses) {
        // A forwarded test may take as long as a test may run, plus the set-up and answer.
        Forwarder forwarder = new Forwarder(mesh, measurements.measurementPoint(), xml::parse,
                props.limits().maxDuration().plusSeconds(30), props.xml().maxBytes());
        return new MessageHandler(xml, measurements, archive, props, forms, forwarder, schedules.getIfAvailable(() -> Schedules.NONE),
                costs, diagnoses);
    }
}
