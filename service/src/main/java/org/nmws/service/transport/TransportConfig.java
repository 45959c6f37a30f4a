package org.nmws.service.transport;

import jakarta.xml.ws.Endpoint;
import org.apache.cxf.Bus;
import org.apache.cxf.jaxws.EndpointImpl;
import org.nmws.service.nmwg.MessageHandler;
import org.nmws.service.nmwg.SafeXml;
import org.nmws.service.v1.V1Codec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Publishes the SOAP endpoints under CXF's servlet (/services by default). */
@Configuration(proxyBeanMethods = false)
class TransportConfig {

    @Bean
    Dialects dialects(SafeXml xml, MessageHandler handler, V1Codec v1) {
        return new Dialects(xml, handler, v1);
    }

    @Bean
    Endpoint soap11Endpoint(Bus bus, Dialects handler) {
        EndpointImpl endpoint = new EndpointImpl(bus, new SoapEndpoints.Soap11(handler));
        endpoint.publish("/MeasurementService");
        return endpoint;
    }

    @Bean
    Endpoint soap12Endpoint(Bus bus, Dialects handler) {
        EndpointImpl endpoint = new EndpointImpl(bus, new SoapEndpoints.Soap12(handler));
        endpoint.publish("/MeasurementService12");
        return endpoint;
    }
}
