package org.nmws.service.nmwg;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.nmws.service.observation.Characteristic.ProbeTest;

/** The data form of every test; each test has exactly one. */
public final class DataForms {
    private final Map<ProbeTest, DataForm> byTest = new EnumMap<>(ProbeTest.class);

    public DataForms(List<? extends DataForm> forms) {
        for (DataForm f : forms) {
            if (byTest.put(f.test(), f) != null) {
                throw new IllegalStateException("two NMWG data forms for " + f.test());
            }
        }
        for (ProbeTest t : ProbeTest.values()) {
            if (!byTest.containsKey(t)) {
                throw new IllegalStateException("no NMWG data form for " + t);
            }
        }
    }

    public DataForm get(ProbeTest test) {
        return byTest.get(test);
    }
}
