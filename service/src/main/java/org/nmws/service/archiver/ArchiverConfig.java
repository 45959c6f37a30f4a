package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.Outbox;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.measure.MeasurementService;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** The outbox in the archive's database, handed to the result keeper, and its delivery. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ArchiverProperties.class)
class ArchiverConfig {

    @Bean
    Outbox outbox(JdbcTemplate jdbc, ObjectMapper json, MeasurementService measurements, ArchiverProperties props,
                  ResultKeeper keeper) {
        Outbox outbox = new Outbox(jdbc, json, measurements.measurementPoint(), props.defaultTtl(), props.maxBacklog(),
                Clock.systemUTC());
        keeper.setOutbox(outbox);
        return outbox;
    }

    @Bean
    ResultBodies resultBodies() {
        return new PerfsonarBodies();
    }

    @Bean
    Delivery delivery(Outbox outbox, Archive archive, ResultBodies bodies, ArchiverProperties props, MeterRegistry registry,
                      ObjectMapper json) {
        return new Delivery(outbox, archive, bodies, props, registry, json, Clock.systemUTC());
    }
}
