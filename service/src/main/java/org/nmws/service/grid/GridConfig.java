package org.nmws.service.grid;

import java.time.Clock;
import java.time.Duration;
import org.nmws.service.archive.Archive;
import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.schedule.ScheduleStore;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class GridConfig {

    /** Other points' grids are read within nmws.grid.remote-timeout, at most 4 MiB each. */
    @Bean(destroyMethod = "close")
    RemoteGrids remoteGrids(@Value("${nmws.grid.remote-timeout:PT3S}") Duration timeout) {
        return new RemoteGrids(timeout, 4 << 20);
    }

    @Bean
    MeshGrid meshGrid(ScheduleStore store, Archive archive, Mesh mesh, MeasurementService measurements, MeasurementKinds kinds,
                      RemoteGrids remote, @Value("${nmws.grid.stale-after-periods:3}") double staleAfterPeriods) {
        return new MeshGrid(store, archive, mesh, measurements.measurementPoint(), kinds, remote, Clock.systemUTC(),
                staleAfterPeriods);
    }
}
