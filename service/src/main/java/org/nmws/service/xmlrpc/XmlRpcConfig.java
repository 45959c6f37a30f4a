package org.nmws.service.xmlrpc;

import org.nmws.service.NmwsProperties;
import org.nmws.service.transport.Dialects;
import org.nmws.service.v1.V1Service;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class XmlRpcConfig {
    /** Most values (scalars, structs, arrays) one call may carry. */
    static final int MAX_VALUES = 10_000;

    @Bean
    XmlRpcCodec xmlRpcCodec(NmwsProperties props) {
        return new XmlRpcCodec(props.xml().maxBytes(), props.xml().maxDepth(), MAX_VALUES);
    }

    @Bean
    XmlRpcMethods xmlRpcMethods(V1Service v1, Dialects dialects, org.nmws.service.usecase.TransferCosts costs) {
        return new XmlRpcMethods(v1, dialects, costs);
    }
}
