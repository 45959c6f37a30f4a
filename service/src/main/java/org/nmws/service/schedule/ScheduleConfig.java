package org.nmws.service.schedule;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Instant;
import org.nmws.service.archive.ResultKeeper;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Mesh;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ScheduleProperties.class)
class ScheduleConfig {

    /** A run whose result was held is done with its observation when the held result is written. */
    @Bean
    ScheduleStore scheduleStore(JdbcTemplate jdbc, ObjectMapper json, ResultKeeper keeper) {
        ScheduleStore store = new ScheduleStore(jdbc, json);
        keeper.addListener((key, observationId) -> store.kept(key, observationId, Instant.now()));
        return store;
    }

    @Bean
    FarEndSessions farEndSessions() {
        return new FarEndSessions();
    }

    @Bean
    ScheduleService scheduleService(ScheduleStore store, MeasurementService measurements, ScheduleProperties props,
            @org.springframework.beans.factory.annotation.Value("${nmws.archivers.client-hosts:}") String clientHosts,
            FarEndSessions farEnds) {
        java.util.Set<String> hosts = new java.util.HashSet<>();
        for (String h : clientHosts.split(",")) {
            if (!h.isBlank()) {
                hosts.add(h.trim().toLowerCase(java.util.Locale.ROOT));
            }
        }
        return new ScheduleService(store, measurements, props.maxPerOwner(), hosts, farEnds);
    }

    @Bean
    org.nmws.service.usecase.Schedules nmwgSchedules(ScheduleService schedules) {
        return new NmwgSchedules(schedules);
    }

    /** The configuration's schedules are written to the store before the scheduler starts. */
    @Bean
    Scheduler scheduler(ScheduleStore store, MeasurementService measurements, ScheduleProperties props, Mesh mesh,
                        org.springframework.beans.factory.ObjectProvider<Scheduler.RunListener> listener,
                        org.springframework.beans.factory.ObjectProvider<ScheduleOwners> owners,
                        org.nmws.service.NmwsProperties nmws, FarEndSessions farEnds) {
        String self = measurements.measurementPoint();
        for (ScheduleProperties.Entry e : props.schedules()) {
            store.put(ScheduleRequest.of(e).toSchedule(e.name(), self, measurements::testClassOf));
        }
        // This point's share of the mesh: each group's pairs from here, named group:src:dst.
        for (Mesh.Group g : mesh.groups()) {
            for (Mesh.Point[] pair : mesh.pairsFrom(g, self)) {
                java.util.Map<String, String> params = new java.util.HashMap<>(g.parameters() == null ? java.util.Map.of()
                        : g.parameters());
                if (pair[1].responderPort() > 0) {
                    params.putIfAbsent("port", Integer.toString(pair[1].responderPort()));
                }
                store.put(new ScheduleRequest(g.characteristic(), pair[1].address(), params, g.period(), g.slip(), null, null,
                        g.testClass(), self, true, g.continuous()).toSchedule(g.name() + ":" + pair[0].name() + ":" + pair[1].name(), self,
                        measurements::testClassOf));
            }
        }
        ScheduleService.warnOverBooked(store, self, measurements);
        // Disabled, it still answers availability and keeps schedules, but runs none.
        Scheduler scheduler = new Scheduler(store, measurements, measurements.measurementPoint(), props.horizon(), props.workers(),
                Clock.systemUTC(), props.enabled(), listener.getIfAvailable(() -> (status, cause) -> { }),
                owners.getIfAvailable(() -> s -> s.owner() == null ? org.nmws.service.measure.Caller.SERVICE
                        : new org.nmws.service.measure.Caller(s.ownerAddress(), null, false, false, null, null)),
                props.agreeSlots() && org.nmws.probe.Probe.isAvailable() ? new ResponderSlots(farEnds) : null,
                props.ownResponder());
        // beside the result spool: what a run's record needs when the database is down
        scheduler.keepRecordsIn(nmws.dataDir().toAbsolutePath().resolve("scheduler-journal"));
        return scheduler;
    }
}
