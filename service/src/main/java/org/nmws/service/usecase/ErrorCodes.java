package org.nmws.service.usecase;

/** The dotted result codes nmws emits, in the form perfSONAR services deployed. */
public final class ErrorCodes {
    /** Not well-formed XML, a DOCTYPE, too large or too deep, or not an NMWG message. */
    public static final String PARSE_ERROR = "error.common.parse_error";
    /** A message type this service does not answer. */
    public static final String ACTION_NOT_SUPPORTED = "error.common.action_not_supported";
    /** An eventType (characteristic) this service does not know or cannot measure. */
    public static final String EVENT_TYPE_NOT_SUPPORTED = "error.common.event_type_not_supported";
    /** Broken metadata/data structure: a data trigger without metadata, a dangling or cyclic reference. */
    public static final String STRUCTURE = "error.common.structure";
    /** A missing or unusable subject. */
    public static final String SUBJECT = "error.common.subject";
    /** A parameter that is malformed or out of range. */
    public static final String PARAMETER = "error.common.parameter";
    /** The store could not answer a query. */
    public static final String MA_QUERY = "error.ma.query";
    /** The store could not keep a result. */
    public static final String MA_STORAGE = "error.ma.storage";
    /** The test could not be run or failed (responder unreachable, refused, busy). */
    public static final String MP_MEASUREMENT = "error.mp.measurement";
    /** Another test holds the path; the client may retry later (GGF v1: TryAgain). */
    public static final String MP_BUSY = "error.mp.busy";
    /** The client may not start tests here (nmws.limits.test-clients); stored results stay open to it. */
    public static final String AUTHORIZATION = "error.common.authorization";
    /** The client has started its share of tests for now; the text says when to retry (GGF v1: TryAgain). */
    public static final String MP_RATE_LIMITED = "error.mp.rate_limited";
    /** The probe engine is not available on this host. */
    public static final String MP_UNAVAILABLE = "error.mp.unavailable";
    /** Anything unexpected; the datum says what, never with a stack trace. */
    public static final String INTERNAL = "error.common.internal";

    public static final String SUCCESS_ECHO = "success.echo";
    /**
     * Beside a new result: the archive could not keep it now; it is held on the measuring
     * point's disk and written, exactly once, when the archive returns.
     */
    public static final String SUCCESS_MA_PENDING = "success.ma.pending";
    /** A MeasurementRequest with schedule.* parameters made (or replaced) a schedule. */
    public static final String SUCCESS_SCHEDULE = "success.schedule";

    /** The code a failed test is answered with, in every dialect. */
    public static String of(org.nmws.service.measure.MeasurementException.Kind kind) {
        return switch (kind) {
            case PARAMETER -> PARAMETER;
            case SUBJECT -> SUBJECT;
            case UNAVAILABLE -> MP_UNAVAILABLE;
            case BUSY -> MP_BUSY;
            case DENIED -> AUTHORIZATION;
            case RATE_LIMITED -> MP_RATE_LIMITED;
            case FAILED -> MP_MEASUREMENT;
            case STORAGE -> MA_STORAGE;
        };
    }

    private ErrorCodes() {
    }
}
