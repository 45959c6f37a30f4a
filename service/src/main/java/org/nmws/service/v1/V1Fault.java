package org.nmws.service.v1;

/**
 * A GGF NM-WG v1 fault (nm_fault.rnc): the kind, its numeric code, a readable message and,
 * for TryAgain, how many seconds the client should wait.
 */
public final class V1Fault extends Exception {
    /** The seven v1 fault kinds; the code is the one nmws puts in {@code <code>}. */
    public enum Kind {
        NoData(1), Communication(2), System(3), Authorisation(4), Request(5), Discovery(6), TryAgain(7);

        public final int code;

        Kind(int code) {
            this.code = code;
        }
    }

    private final Kind kind;
    private final String nmwgCode;
    private final double delaySeconds;

    public V1Fault(Kind kind, String message) {
        this(kind, null, message, 0);
    }

    /**
     * @param nmwgCode the NMWG v2 error code the fault was translated from, or null
     * @param delaySeconds for TryAgain, the wait before retrying; otherwise 0
     */
    public V1Fault(Kind kind, String nmwgCode, String message, double delaySeconds) {
        super(message);
        this.kind = kind;
        this.nmwgCode = nmwgCode;
        this.delaySeconds = delaySeconds;
    }

    public Kind kind() {
        return kind;
    }

    public String nmwgCode() {
        return nmwgCode;
    }

    public double delaySeconds() {
        return delaySeconds;
    }
}
