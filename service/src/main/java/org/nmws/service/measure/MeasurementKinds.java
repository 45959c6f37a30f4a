package org.nmws.service.measure;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.observation.Characteristic.ProbeTest;

/** The kinds this service runs, by test; every test has exactly one. */
public final class MeasurementKinds {
    private final Map<ProbeTest, MeasurementKind<?>> byTest = new EnumMap<>(ProbeTest.class);

    public MeasurementKinds(List<MeasurementKind<?>> kinds) {
        for (MeasurementKind<?> k : kinds) {
            if (byTest.put(k.test(), k) != null) {
                throw new IllegalStateException("two measurement kinds for " + k.test());
            }
        }
        for (ProbeTest t : ProbeTest.values()) {
            if (!byTest.containsKey(t)) {
                throw new IllegalStateException("no measurement kind runs " + t);
            }
        }
    }

    public MeasurementKind<?> get(ProbeTest test) {
        return byTest.get(test);
    }

    /** Every kind, in the order of the tests. */
    public java.util.Collection<MeasurementKind<?>> all() {
        return java.util.Collections.unmodifiableCollection(byTest.values());
    }
}
