package org.nmws.service.grid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.nmws.service.archive.Archive;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.mesh.Mesh;
import org.nmws.service.observation.Characteristic.ProbeTest;
import org.nmws.service.observation.Observation;
import org.nmws.service.schedule.Schedule;
import org.nmws.service.schedule.ScheduleStore;
import org.nmws.service.schedule.ScheduledRun;

/**
 * The mesh's grid, sources by destinations, seen whole from this point. Each cell holds the
 * test definitions of its pair (schedules: the mesh file's groups, pSConfig tasks, clients'
 * schedules), each with its own latest result, its age and its state ({@link DefinitionState}):
 * a test asked for on demand belongs to no definition and colours no cell.
 *
 * <p>Where a definition is read: this point's and any other point's schedules in this point's
 * archive (a shared PostgreSQL archive holds every point's) are read from it; a mesh point
 * whose schedules are not there is asked for its own part (GET /api/grid?scope=local, with the
 * mesh file's credentials for it, bounded in time), and one that does not answer is shown as
 * unreachable. With an OpenSearch cluster named (nmws.grid.opensearch-url), those points' cells
 * are read from the results it holds instead ({@link OpenSearchGrid}): any point of a mesh that
 * archives there, nmws or perfSONAR, is seen without being asked.
 */
public final class MeshGrid {
    /** A figure that stands for its kind in a cell: the group it heads, from which test's summary datum. */
    private record Headline(String group, ProbeTest test, String datum) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How many of a definition's newest runs are read for its state (two ended runs decide it). */
    private static final int RECENT_RUNS = 6;

    private final ScheduleStore store;
    private final Archive archive;
    private final Mesh mesh;
    private final String self;
    private final RemoteGrids remote;
    private final OpenSearchGrid shared;
    private final Clock clock;
    private final double staleAfterPeriods;
    private final List<Headline> headlines = new ArrayList<>();
    private final List<Map<String, String>> groups = new ArrayList<>();

    public MeshGrid(ScheduleStore store, Archive archive, Mesh mesh, String self, MeasurementKinds kinds, RemoteGrids remote,
                    Clock clock, double staleAfterPeriods) {
        this(store, archive, mesh, self, kinds, remote, null, clock, staleAfterPeriods);
    }

    /** @param shared the OpenSearch cluster the mesh archives to, or null: other points are then asked */
    public MeshGrid(ScheduleStore store, Archive archive, Mesh mesh, String self, MeasurementKinds kinds, RemoteGrids remote,
                    OpenSearchGrid shared, Clock clock, double staleAfterPeriods) {
        if (!(staleAfterPeriods >= 1 && staleAfterPeriods <= 100)) {
            throw new IllegalArgumentException("nmws.grid.stale-after-periods must be 1..100, was " + staleAfterPeriods);
        }
        this.store = store;
        this.archive = archive;
        this.mesh = mesh;
        this.self = self;
        this.remote = remote;
        this.shared = shared;
        this.clock = clock;
        this.staleAfterPeriods = staleAfterPeriods;
        Set<String> seen = new LinkedHashSet<>();
        for (MeasurementKind<?> k : kinds.all()) {
            for (Figure f : k.figures()) {
                if (f.headline()) {
                    headlines.add(new Headline(f.group(), k.test(), f.name()));
                    if (seen.add(f.group())) {
                        groups.add(Map.of("name", f.group(), "label", f.label(), "unit",
                                f.unit().label() == null ? "" : f.unit().label()));
                    }
                }
            }
        }
    }

    /**
     * The grid.
     *
     * @param localOnly only this point's own definitions, from its archive (what another point
     *        asks for): no other point is asked, so two points asking each other never loop
     */
    public Map<String, Object> grid(boolean localOnly) {
        Instant now = clock.instant();
        List<Schedule> schedules = store.all();
        Set<String> inArchive = new LinkedHashSet<>();
        schedules.forEach(s -> inArchive.add(s.point()));
        Map<String, Map<String, Object>> cells = new LinkedHashMap<>();
        List<Map<String, Object>> points = new ArrayList<>();
        for (Schedule s : schedules) {
            if (!localOnly || s.point().equals(self)) {
                add(cells, rowOf(s.point()), columnOf(s.dst()), definition(s, now, s.point().equals(self) ? "self" : "archive"));
            }
        }
        if (!localOnly) {
            List<Mesh.Point> ask = new ArrayList<>();
            for (Mesh.Point p : mesh.points()) {
                if (p.name().equals(self) || inArchive.contains(p.name())) {
                    Map<String, Object> m = point(p.name(), p.name().equals(self) ? "self" : "archive");
                    m.put("reachable", true);
                    points.add(m);
                } else {
                    ask.add(p);
                }
            }
            if (shared != null) {
                ask = fromOpenSearch(cells, points, ask, inArchive, now);
            }
            for (RemoteGrids.Answer a : remote.read(ask)) {
                Map<String, Object> m = point(a.point().name(), "remote");
                m.put("reachable", a.error() == null);
                m.put("answeredInMs", a.millis());
                if (a.error() != null) {
                    m.put("error", a.error());
                } else {
                    merge(cells, a.point(), a.body());
                }
                points.add(m);
            }
        }
        Set<String> rows = new LinkedHashSet<>();
        Set<String> columns = new LinkedHashSet<>();
        mesh.points().forEach(p -> {
            rows.add(p.name());
            columns.add(p.name());
        });
        for (Map<String, Object> c : cells.values()) {
            rows.add((String) c.get("src"));
            columns.add((String) c.get("dst"));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("point", self);
        body.put("generated", now.toString());
        body.put("scope", localOnly ? "local" : "mesh");
        body.put("staleAfterPeriods", staleAfterPeriods);
        body.put("points", points);
        body.put("rows", new ArrayList<>(rows));
        body.put("columns", new ArrayList<>(columns));
        body.put("cells", new ArrayList<>(cells.values()));
        body.put("groups", groups);
        return body;
    }

    /**
     * The cells of every source the cluster holds results of, but this point and the points whose
     * schedules are in this archive (their definitions are shown whole already); the mesh points
     * asked for are answered for by the cluster. Returns the points left to ask: none when the
     * cluster answered whole; when it failed or answered in part, those it showed nothing of
     * (each is then asked itself).
     */
    private List<Mesh.Point> fromOpenSearch(Map<String, Map<String, Object>> cells, List<Map<String, Object>> points,
                                           List<Mesh.Point> ask, Set<String> inArchive, Instant now) {
        OpenSearchGrid.Answer a = shared.read(now);
        Map<String, Object> cluster = point("opensearch", "opensearch");
        cluster.put("url", shared.toString());
        cluster.put("reachable", a.error() == null || !a.cells().isEmpty());
        cluster.put("answeredInMs", a.millis());
        if (a.error() != null) {
            cluster.put("error", a.error());
        }
        points.add(cluster);
        Set<String> seen = new LinkedHashSet<>();
        for (OpenSearchGrid.Cell c : a.cells()) {
            // the point that measured, when the document names it (an nmws point), else its source host
            String row = rowOf(c.point() != null ? c.point() : c.src());
            if (row.equals(self) || inArchive.contains(row)) {
                continue;
            }
            seen.add(row);
            add(cells, row, columnOf(c.dst()), c.definition());
        }
        List<Mesh.Point> left = new ArrayList<>();
        for (Mesh.Point p : ask) {
            if (!seen.contains(p.name()) && a.error() != null) {
                left.add(p); // the cluster's answer was not whole: the point is asked itself
                continue;
            }
            Map<String, Object> m = point(p.name(), "opensearch");
            m.put("reachable", seen.contains(p.name()));
            if (!seen.contains(p.name())) {
                m.put("error", "no result of it in OpenSearch in the window read");
            }
            points.add(m);
        }
        return left;
    }

    private static Map<String, Object> point(String name, String source) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("source", source);
        return m;
    }

    /** A point's row: its mesh name (a schedule names the measurement point that runs it). */
    private String rowOf(String point) {
        return mesh.point(point).map(Mesh.Point::name).orElse(point);
    }

    /** A destination's column: the mesh point whose name or address it is, else the destination as named. */
    private String columnOf(String dst) {
        return mesh.point(dst).map(Mesh.Point::name).orElse(dst);
    }

    private Map<String, Object> definition(Schedule s, Instant now, String via) {
        List<ScheduledRun> recent = store.runs(s.id(), RECENT_RUNS, now);
        Optional<ScheduledRun> done = store.latestDone(s.id());
        Optional<Observation> result = done.flatMap(r -> archive.findById(r.observationId(), false));
        Instant resultAt = result.map(Observation::end).orElse(null);
        DefinitionState state = DefinitionState.of(recent, resultAt, s.period(), staleAfterPeriods, now);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("name", s.name());
        d.put("definition", label(s));
        d.put("origin", origin(s));
        d.put("point", s.point());
        d.put("dst", s.dst());
        d.put("characteristic", s.characteristic());
        d.put("parameters", new java.util.TreeMap<>(s.parameters()));
        d.put("period", s.period().toString());
        d.put("periodSeconds", s.period().toMillis() / 1000.0);
        d.put("enabled", s.enabled());
        d.put("via", via);
        d.put("state", state.state());
        d.put("reason", state.reason());
        recent.stream().filter(r -> !r.status().equals(ScheduledRun.PLANNED)).findFirst().ifPresent(r -> {
            Map<String, Object> last = new LinkedHashMap<>();
            last.put("status", r.status());
            last.put("planned", r.planned().toString());
            last.put("reason", r.reason());
            d.put("lastRun", last);
        });
        result.ifPresent(o -> {
            Map<String, Object> res = new LinkedHashMap<>();
            res.put("observationId", o.id());
            res.put("test", o.test().key());
            res.put("start", o.start().toString());
            res.put("end", o.end().toString());
            res.put("ageSeconds", Math.max(0, Duration.between(o.end(), now).toMillis()) / 1000.0);
            Map<String, Double> figures = new LinkedHashMap<>();
            for (Headline h : headlines) {
                Double v = h.test() == o.test() ? o.summary().get(h.datum()) : null;
                if (v != null && !v.isNaN() && !v.isInfinite()) {
                    figures.putIfAbsent(h.group(), v);
                }
            }
            res.put("figures", figures);
            d.put("result", res);
        });
        return d;
    }

    /** What defined it: a pSConfig task, a mesh file's group, or a schedule of its own. */
    private String origin(Schedule s) {
        if (s.name().startsWith("psconfig:")) {
            return "psconfig";
        }
        for (Mesh.Group g : mesh.groups()) {
            if (s.name().startsWith(g.name() + ":")) {
                return "mesh";
            }
        }
        return "schedule";
    }

    /** The definition's short name: the task or group (psconfig:TASK:src:dst, GROUP:src:dst), else the schedule's name. */
    private String label(Schedule s) {
        String origin = origin(s);
        if (origin.equals("psconfig")) {
            String rest = s.name().substring("psconfig:".length());
            return rest.contains(":") ? rest.substring(0, rest.indexOf(':')) : rest;
        }
        if (origin.equals("mesh")) {
            return s.name().substring(0, s.name().indexOf(':'));
        }
        return s.name();
    }

    private static final List<String> WORST_FIRST = List.of(DefinitionState.FAILING, DefinitionState.STALE,
            DefinitionState.PENDING, DefinitionState.OK);

    @SuppressWarnings("unchecked")
    private static void add(Map<String, Map<String, Object>> cells, String src, String dst, Map<String, Object> definition) {
        Map<String, Object> cell = cells.computeIfAbsent(src + "\n" + dst, k -> {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("src", src);
            c.put("dst", dst);
            c.put("state", DefinitionState.OK);
            c.put("definitions", new ArrayList<Map<String, Object>>());
            return c;
        });
        ((List<Map<String, Object>>) cell.get("definitions")).add(definition);
        // the cell looks as its worst definition: one failing test of a pair is not hidden by a fresh one
        int was = WORST_FIRST.indexOf((String) cell.get("state"));
        int is = WORST_FIRST.indexOf((String) definition.get("state"));
        if (is >= 0 && is < was) {
            cell.put("state", definition.get("state"));
        }
    }

    /** Another point's own definitions, as it answered them: only those it runs, under its name. */
    @SuppressWarnings("unchecked")
    private void merge(Map<String, Map<String, Object>> cells, Mesh.Point p, JsonNode body) {
        for (JsonNode c : body.path("cells")) {
            for (JsonNode d : c.path("definitions")) {
                if (!p.name().equals(rowOf(d.path("point").asText()))) {
                    continue; // a point speaks for its own tests only
                }
                Map<String, Object> def = JSON.convertValue(d, Map.class);
                def.put("via", "remote");
                if (!WORST_FIRST.contains(String.valueOf(def.get("state")))) {
                    def.put("state", DefinitionState.FAILING);
                    def.put("reason", "point " + p.name() + " gave a state this point does not know: " + d.path("state").asText());
                }
                add(cells, p.name(), columnOf(d.path("dst").asText()), def);
            }
        }
    }
}
