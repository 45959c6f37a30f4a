package org.nmws.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** nmws: an NM-WG measurement service. Transports, NMWG handling, measurement and archive. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class NmwsApplication {
    public static void main(String[] args) {
        SpringApplication.run(NmwsApplication.class, args);
    }
}
