package org.nmws.service.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.measure.Figure;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.observation.Characteristic;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /api/kinds: every kind of test as it declares itself, for readers that show results
 * (the dashboard, the CLI, a script): the characteristics it answers and the class each runs
 * in, what the far end must run, and its figures with their units, a grid cell's headline
 * figures marked with their group, and the figures a path's charts draw with their chart. Nothing here is written twice: it is each kind's own.
 */
@RestController
class KindsController {
    private final MeasurementKinds kinds;

    KindsController(MeasurementKinds kinds) {
        this.kinds = kinds;
    }

    @GetMapping(path = "/api/kinds", produces = "application/json")
    List<Map<String, Object>> kinds() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (MeasurementKind<?> k : kinds.all()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("test", k.test().key());
            Map<String, String> classes = new LinkedHashMap<>();
            for (Characteristic c : Characteristic.answeredBy(k.test())) {
                classes.put(c.dottedName(), k.testClass(c).label());
            }
            m.put("characteristics", classes);
            m.put("farEnd", k.farEnd().name().toLowerCase(java.util.Locale.ROOT));
            List<Map<String, Object>> figures = new ArrayList<>();
            for (Figure f : k.figures()) {
                Map<String, Object> fm = new LinkedHashMap<>();
                fm.put(f.pattern() ? "pattern" : "name", f.name());
                fm.put("unit", f.unit().label());
                if (f.headline()) {
                    fm.put("group", f.group());
                    fm.put("label", f.label());
                }
                if (f.chart() != null) {
                    fm.put("chart", f.chart());
                    fm.put("chartLabel", f.chartLabel());
                }
                figures.add(fm);
            }
            m.put("figures", figures);
            out.add(m);
        }
        return out;
    }
}
