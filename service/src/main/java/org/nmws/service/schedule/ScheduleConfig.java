package org.nmws.service.schedule;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import org.nmws.service.measure.MeasurementService;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ScheduleProperties.class)
class ScheduleConfig {

    @Bean
    ScheduleStore scheduleStore(JdbcTemplate jdbc, ObjectMapper json) {
        return new ScheduleStore(jdbc, json);
    }

    /** The configuration's schedules are written to the store before the scheduler starts. */
    @Bean
    Scheduler scheduler(ScheduleStore store, MeasurementService measurements, ScheduleProperties props) {
        for (ScheduleProperties.Entry e : props.schedules()) {
            store.put(ScheduleRequest.of(e).toSchedule(e.name(), measurements.measurementPoint()));
        }
        // Disabled, it still answers availability and keeps schedules, but runs none.
        return new Scheduler(store, measurements, measurements.measurementPoint(), props.horizon(), props.workers(),
                Clock.systemUTC(), props.enabled());
    }
}
