package org.nmws.service.transport;

import jakarta.xml.ws.Endpoint;
import org.apache.cxf.Bus;
import org.apache.cxf.jaxws.EndpointImpl;
import java.util.HashMap;
import java.util.Map;
import org.nmws.service.NmwsProperties;
import org.nmws.service.nmwg.MessageHandler;
import org.nmws.service.nmwg.SafeXml;
import org.nmws.service.security.SecurityProperties;
import org.nmws.service.security.WsSecurityUsernameToken;
import org.nmws.service.v1.V1Codec;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.AuthenticationManager;

/** Publishes the SOAP endpoints under CXF's servlet (/services by default). */
@Configuration(proxyBeanMethods = false)
class TransportConfig {
    /** The SOAPActions the WSDL declares: NMWG v2's, and the v1 operation's empty one. */
    private static final java.util.Set<String> DECLARED_ACTIONS = java.util.Set.of("http://ggf.org/ns/nmwg/base/2.0/message/", "",
            SoapFastPath.COST_ACTION);

    @Bean
    Dialects dialects(SafeXml xml, MessageHandler handler, V1Codec v1, org.nmws.service.usecase.TransferCosts costs) {
        return new Dialects(xml, handler, v1, costs);
    }

    @Bean
    Endpoint soap11Endpoint(Bus bus, Dialects handler, NmwsProperties props, @Value("${cxf.path}") String servletPath,
                            @Value("${nmws.public-url:}") String publicUrl, WsSecurityUsernameToken wsSecurity,
                            org.nmws.service.security.Callers callers) {
        return publish(new EndpointImpl(bus, new SoapEndpoints.Soap11(handler, callers)), servletPath, "/MeasurementService", props, publicUrl,
                wsSecurity);
    }

    @Bean
    Endpoint soap12Endpoint(Bus bus, Dialects handler, NmwsProperties props, @Value("${cxf.path}") String servletPath,
                            @Value("${nmws.public-url:}") String publicUrl, WsSecurityUsernameToken wsSecurity,
                            org.nmws.service.security.Callers callers) {
        return publish(new EndpointImpl(bus, new SoapEndpoints.Soap12(handler, callers)), servletPath, "/MeasurementService12", props, publicUrl,
                wsSecurity);
    }

    /**
     * The common SOAP request answered without CXF's chain (SoapFastPath), after the security
     * filters and the body checks ({@code RequestBodies}, which hands it the body).
     * nmws.soap.fast-path=false sends every request through CXF.
     */
    @Bean
    @org.springframework.boot.autoconfigure.condition.ConditionalOnProperty(name = "nmws.soap.fast-path", havingValue = "true",
            matchIfMissing = true)
    org.springframework.boot.web.servlet.FilterRegistrationBean<SoapFastPath> soapFastPath(
            @Value("${cxf.path}") String servletPath, MessageHandler handler,
            org.nmws.service.security.Callers callers, io.micrometer.core.instrument.MeterRegistry meters, NmwsProperties props) {
        var f = new org.springframework.boot.web.servlet.FilterRegistrationBean<>(new SoapFastPath(servletPath, handler, callers,
                meters, limits(props)));
        f.setName("soapFastPath");
        f.setOrder(org.springframework.boot.autoconfigure.security.SecurityProperties.DEFAULT_FILTER_ORDER + 60);
        f.addUrlPatterns(servletPath.replaceAll("/+$", "") + "/*");
        return f;
    }

    @Bean
    WsSecurityUsernameToken wsSecurity(AuthenticationManager nmwsAuthenticationManager, SecurityProperties security) {
        return new WsSecurityUsernameToken(nmwsAuthenticationManager, security);
    }

    /**
     * Publishes an endpoint under CXF's servlet. The WSDL served at either endpoint names
     * both ports, and CXF makes only the requested port's address absolute by itself: a
     * client taking the other port would get "/MeasurementService12". So every port's address
     * is rewritten from the request (scheme, host and port the client used; the path kept
     * from the address set here), or fixed to nmws.public-url when the service sits behind a
     * proxy that changes them. An action the WSDL does not declare is dropped, so that request
     * is routed by its body element like one with an empty or absent action.
     */
    private static Endpoint publish(EndpointImpl endpoint, String servletPath, String path, NmwsProperties props,
                                    String publicUrl, WsSecurityUsernameToken wsSecurity) {
        Map<String, Object> properties = limits(props);
        properties.put("autoRewriteSoapAddressForAllServices", Boolean.TRUE);
        // the Provider<Source> endpoints read the body as DOM (CXF's default for Source is SAX)
        properties.put("source-preferred-format", "dom");
        endpoint.setProperties(properties);
        String absolute = (publicUrl.isBlank() ? "http://localhost" : publicUrl.replaceAll("/+$", "")) + servletPath + path;
        if (!publicUrl.isBlank()) {
            endpoint.setPublishedEndpointUrl(absolute);
        }
        endpoint.getInInterceptors().add(new UnknownSoapActionInterceptor(DECLARED_ACTIONS));
        endpoint.getInInterceptors().add(wsSecurity);
        endpoint.getInInterceptors().add(new OneBodyElement(props.xml().maxBytes()));
        endpoint.getOutFaultInterceptors().add(new SenderFaultStatus());
        endpoint.publish(path);
        endpoint.getServer().getEndpoint().getEndpointInfo().setAddress(absolute);
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
