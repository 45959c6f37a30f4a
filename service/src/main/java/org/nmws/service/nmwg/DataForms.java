package org.nmws.service.nmwg;

import org.nmws.service.measure.MeasurementKinds;
import org.nmws.service.observation.Observation;

/** Writes any observation in the NMWG form of its test, with the units its kind declares. */
public final class DataForms {
    private final MeasurementKinds kinds;

    public DataForms(MeasurementKinds kinds) {
        this.kinds = kinds;
    }

    public void write(NmwgData out, Observation o, boolean raw) {
        NmwgForms.of(o.test()).write(out, o, raw, kinds.get(o.test())::unit);
    }
}
