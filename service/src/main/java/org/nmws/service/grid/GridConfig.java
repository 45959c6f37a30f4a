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

    /**
     * With nmws.grid.opensearch-url, the points whose schedules this archive does not hold are read
     * from the results in that cluster (nmws.grid.opensearch-window back, PT24H by default; a result
     * whose document names no period is stale after nmws.grid.opensearch-stale-after, PT1H).
     */
    @Bean
    MeshGrid meshGrid(ScheduleStore store, Archive archive, Mesh mesh, MeasurementService measurements, MeasurementKinds kinds,
                      RemoteGrids remote, @Value("${nmws.grid.stale-after-periods:3}") double staleAfterPeriods,
                      @Value("${nmws.grid.opensearch-url:${nmws.archive.opensearch-url:}}") String openSearchUrl,
                      @Value("${nmws.grid.remote-timeout:PT3S}") Duration timeout,
                      @Value("${nmws.grid.opensearch-window:PT24H}") Duration window,
                      @Value("${nmws.grid.opensearch-stale-after:PT1H}") Duration staleAfter) {
        OpenSearchGrid shared = openSearchUrl.isBlank() ? null
                : new OpenSearchGrid(openSearchUrl, timeout, window, staleAfter, staleAfterPeriods, 20_000);
        return new MeshGrid(store, archive, mesh, measurements.measurementPoint(), kinds, remote, shared, Clock.systemUTC(),
                staleAfterPeriods);
    }
}
