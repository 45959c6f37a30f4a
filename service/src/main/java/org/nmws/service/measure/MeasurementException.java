package org.nmws.service.measure;

/** A test that could not be run or did not complete; the kind decides the error code a client sees. */
public class MeasurementException extends Exception {
    public enum Kind {
        /** A parameter is malformed or out of range. */
        PARAMETER,
        /** The subject cannot be measured from here. */
        SUBJECT,
        /** Another test holds the path. */
        BUSY,
        /** This client may not start tests here. */
        DENIED,
        /** This client has started as many tests as it may for now. */
        RATE_LIMITED,
        /** The probe engine is not loaded on this host. */
        UNAVAILABLE,
        /** The test ran and failed (responder unreachable, refused, I/O error). */
        FAILED,
        /** The archive cannot keep results and none can be held (the spool is full or its disk refuses). */
        STORAGE
    }

    private final Kind kind;

    public MeasurementException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public MeasurementException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
