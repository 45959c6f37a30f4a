package org.nmws.service.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ObservationQuery;
import org.nmws.service.archive.Series;
import org.nmws.service.archive.SeriesQuery;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/overview: the mesh grid, sources by destinations, each cell the latest stored RTT,
 * one-way delay, loss and throughput with the observation each came from. The rows and columns
 * are the mesh file's points when one is configured (so a pair never measured shows as empty),
 * else the sources and destinations of the stored series. Colouring is the reader's: the
 * dashboard applies its thresholds.
 */
@RestController
class OverviewController {
    /** Where each figure of a cell comes from: the test and the summary datum (each kind's headline figures). */
    private record Figure(String name, ProbeTest test, String datum) {
    }

    private final List<Figure> figures = new ArrayList<>();
    /** The cell's groups in the order kinds declare them: name, label and unit, for the reader's legend. */
    private final List<Map<String, String>> groups = new ArrayList<>();
    /** How many of a destination's newest observations of a test are searched for each source (mesh mode). */
    private static final int PER_DESTINATION = 50;

    private final Archive archive;
    private final Mesh mesh;

    OverviewController(Archive archive, Mesh mesh, MeasurementKinds kinds) {
        this.archive = archive;
        this.mesh = mesh;
        Set<String> seen = new LinkedHashSet<>();
        for (MeasurementKind<?> k : kinds.all()) {
            for (org.nmws.service.measure.Figure f : k.figures()) {
                if (f.headline()) {
                    figures.add(new Figure(f.group(), k.test(), f.name()));
                    if (seen.add(f.group())) {
                        groups.add(Map.of("name", f.group(), "label", f.label(), "unit", f.unit().label() == null ? ""
                                : f.unit().label()));
                    }
                }
            }
        }
    }

    @GetMapping(path = "/api/overview", produces = "application/json")
    Map<String, Object> overview(@RequestParam(defaultValue = "500") int limit) {
        if (limit < 1 || limit > ObservationsController.MAX_SERIES) {
            throw new IllegalArgumentException("limit is " + limit + ": must be 1.." + ObservationsController.MAX_SERIES);
        }
        Map<String, Map<String, Object>> cells = new LinkedHashMap<>();
        Set<String> rows = new LinkedHashSet<>();
        Set<String> columns = new LinkedHashSet<>();
        String source;
        if (!mesh.points().isEmpty()) {
            source = "mesh";
            mesh.points().forEach(p -> rows.add(p.name()));
            mesh.points().forEach(p -> columns.add(p.name()));
            for (Mesh.Point dst : mesh.points()) {
                for (ProbeTest test : tests()) {
                    List<Observation> found = archive.find(new ObservationQuery(test, dst.address(), null, null, null,
                            false, PER_DESTINATION));
                    for (Observation o : found) {
                        sourcePoint(o).filter(src -> !src.equals(dst.name())).ifPresent(src -> put(cells, src, dst.name(), o));
                    }
                }
            }
        } else {
            source = "archive";
            for (Series s : archive.series(new SeriesQuery(null, null, null, Map.of(), limit))) {
                if (!tests().contains(s.test())) {
                    continue;
                }
                String src = s.subject().src() != null ? s.subject().src().host() : s.measurementPoint();
                String dst = s.subject().dst().host();
                rows.add(src);
                columns.add(dst);
                archive.find(new ObservationQuery(s.test(), dst, s.subject().src() == null ? null : src, null, null,
                        false, 1, s.parameters())).forEach(o -> put(cells, src, dst, o));
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("source", source);
        body.put("rows", new ArrayList<>(rows));
        body.put("columns", new ArrayList<>(columns));
        body.put("cells", new ArrayList<>(cells.values()));
        body.put("groups", groups);
        return body;
    }

    /** The mesh point that took an observation: by its measurement point, else by the source it named. */
    private Optional<String> sourcePoint(Observation o) {
        Optional<Mesh.Point> p = mesh.point(o.measurementPoint());
        if (p.isEmpty() && o.subject().src() != null) {
            p = mesh.point(o.subject().src().host());
        }
        return p.map(Mesh.Point::name);
    }

    /** Keeps, for each figure of the cell, the value of the newest observation that has it. */
    private void put(Map<String, Map<String, Object>> cells, String src, String dst, Observation o) {
        Map<String, Object> cell = cells.computeIfAbsent(src + "\n" + dst, k -> {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("src", src);
            c.put("dst", dst);
            return c;
        });
        for (Figure f : figures) {
            Double v = f.test() == o.test() ? o.summary().get(f.datum()) : null;
            if (v == null) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> had = (Map<String, Object>) cell.get(f.name());
            if (had == null || java.time.Instant.parse((String) had.get("at")).isBefore(o.start())) {
                Map<String, Object> fig = new LinkedHashMap<>();
                fig.put("value", v);
                fig.put("id", o.id());
                fig.put("test", o.test().key());
                fig.put("at", o.start().toString());
                cell.put(f.name(), fig);
            }
        }
    }

    private Set<ProbeTest> tests() {
        Set<ProbeTest> t = new LinkedHashSet<>();
        figures.forEach(f -> t.add(f.test()));
        return t;
    }

    @ExceptionHandler(IllegalArgumentException.class)
    @ResponseStatus(HttpStatus.BAD_REQUEST)
    Map<String, String> badRequest(IllegalArgumentException e) {
        return Map.of("error", e.getMessage());
    }
}
