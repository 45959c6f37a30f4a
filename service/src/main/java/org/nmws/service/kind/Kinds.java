package org.nmws.service.kind;

import java.util.List;
import org.nmws.service.measure.MeasurementKind;
import org.nmws.service.measure.MeasurementKinds;

/**
 * Every kind of test this service runs, one row each: how it is read, run, kept and written
 * is in its class. Adding a kind is its class and a row here (and, for a new engine test,
 * one engine file and one row in the engine's nmp_kinds[]); a dialect writes it in its
 * default form unless the dialect's table has a rule for it.
 */
public final class Kinds {
    private static List<MeasurementKind<?>> all(java.nio.file.Path keyFile) {
        return List.of(
            new RoundTripKind(),
            new LatencyScanKind(),
            new UdpStreamKind(),
            new TcpStreamKind(),
            new HopListKind(),
            new CapacityKind(),
            new HopCapacityKind(),
            new AvailableBandwidthKind(),
            new UtilizationKind(),
            new StampKind(),
            new OwampKind(keyFile),
            new TwampKind(keyFile));
    }

    private Kinds() {
    }

    /** Every kind, with no key file: OWAMP and TWAMP in open mode only. */
    public static MeasurementKinds measurementKinds() {
        return measurementKinds(null);
    }

    /**
     * Every kind; keyFile (owampd's pfs format, or null) holds the keys this point uses as a
     * client in OWAMP's and TWAMP's authenticated and encrypted modes.
     */
    public static MeasurementKinds measurementKinds(java.nio.file.Path keyFile) {
        return new MeasurementKinds(all(keyFile));
    }

}
