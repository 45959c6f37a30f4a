package org.nmws.service.web;

import org.nmws.service.NmwsProperties;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.security.SecurityProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Registers {@link RequestBodies} for every request, after the security filters have said who may ask. */
@Configuration(proxyBeanMethods = false)
class RequestBodiesConfig {

    @Bean
    FilterRegistrationBean<RequestBodies> requestBodies(NmwsProperties props, @Value("${cxf.path}") String soapPath) {
        FilterRegistrationBean<RequestBodies> f = new FilterRegistrationBean<>(new RequestBodies(soapPath, props.xml().maxBytes()));
        f.setName("requestBodies");
        f.setOrder(SecurityProperties.DEFAULT_FILTER_ORDER + 50);
        f.addUrlPatterns("/*");
        return f;
    }
}
