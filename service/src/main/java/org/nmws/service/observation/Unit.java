package org.nmws.service.observation;

/**
 * The unit of a summary figure, declared by the kind that measures it (never guessed from the
 * figure's name), with the label NMWG answers carry.
 */
public enum Unit {
    MILLISECONDS("ms"),
    MICROSECONDS("us"),
    NANOSECONDS("ns"),
    MICROSECONDS_PER_BYTE("us/byte"),
    MBIT_PER_SECOND("Mbit/s"),
    PERCENT("%"),
    BYTES("bytes"),
    RATIO("ratio"),
    /** A count or a value without a unit (frames, hops, retransmits, r^2). */
    NONE(null);

    private final String label;

    Unit(String label) {
        this.label = label;
    }

    /** The units attribute written with the figure, or null for a count. */
    public String label() {
        return label;
    }
}
