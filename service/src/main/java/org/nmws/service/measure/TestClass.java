package org.nmws.service.measure;

import java.util.Locale;

/**
 * Scheduling classes as pScheduler's operators know them. Exclusive tests (throughput) run
 * with nothing else on this host, since any other traffic would bias them; normal tests
 * (one-way delay, loss, scans) run beside each other but not beside an exclusive one;
 * background tests (round trip, hop list, STAMP, utilization) are light enough to run
 * beside anything. Each kind says which class its test is in
 * ({@link MeasurementKind#testClass}).
 */
public enum TestClass {
    EXCLUSIVE, NORMAL, BACKGROUND;

    public static TestClass parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("test class '" + text + "' is not exclusive, normal or background");
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
