package org.nmws.service.transport;

import jakarta.xml.ws.Endpoint;
import org.apache.cxf.Bus;
import org.apache.cxf.jaxws.EndpointImpl;
import java.util.HashMap;
import java.util.Map;
import org.nmws.service.NmwsProperties;
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
    Endpoint soap11Endpoint(Bus bus, Dialects handler, NmwsProperties props) {
        EndpointImpl endpoint = new EndpointImpl(bus, new SoapEndpoints.Soap11(handler));
        endpoint.setProperties(limits(props));
        endpoint.publish("/MeasurementService");
        return endpoint;
    }

    @Bean
    Endpoint soap12Endpoint(Bus bus, Dialects handler, NmwsProperties props) {
        EndpointImpl endpoint = new EndpointImpl(bus, new SoapEndpoints.Soap12(handler));
        endpoint.setProperties(limits(props));
        endpoint.publish("/MeasurementService12");
        return endpoint;
    }

    /**
     * The same document limits as every other transport, enforced by CXF's StAX reader while
     * it reads the envelope (its defaults allow 128 MB per text node and any element count):
     * an oversized or deep envelope is a SOAP fault before it is ever held in memory.
     */
    static Map<String, Object> limits(NmwsProperties props) {
        int bytes = props.xml().maxBytes();
        Map<String, Object> m = new HashMap<>();
        m.put("org.apache.cxf.stax.maxXMLCharacters", (long) bytes);
        m.put("org.apache.cxf.stax.maxTextLength", bytes);
        m.put("org.apache.cxf.stax.maxElementCount", (long) Math.max(1000, bytes / 16));
        m.put("org.apache.cxf.stax.maxElementDepth", props.xml().maxDepth() + 3); // Envelope, Body, then the message
        m.put("org.apache.cxf.stax.maxAttributeCount", 64);
        m.put("org.apache.cxf.stax.maxAttributeSize", 65536);
        return m;
    }
}
