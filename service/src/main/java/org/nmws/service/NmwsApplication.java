package org.nmws.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** nmws: an NM-WG measurement service. Transports, NMWG handling, measurement and archive. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class NmwsApplication {
    static {
        // JAXB makes an identity transformer for each answer that carries a DOM element (the
        // environment), and asks TransformerFactory.newInstance() for it: without this property
        // that is a ServiceLoader scan of the whole boot jar, a fifth of a round trip's Java time
        // in the service (issue 25 goal 3, JFR). The JDK's own implementation, named, is found at once.
        if (System.getProperty("javax.xml.transform.TransformerFactory") == null) {
            System.setProperty("javax.xml.transform.TransformerFactory",
                    "com.sun.org.apache.xalan.internal.xsltc.trax.TransformerFactoryImpl");
        }
    }

    public static void main(String[] args) {
        SpringApplication.run(NmwsApplication.class, args);
    }
}
