package org.nmws.service.nmwg;

/**
 * A protocol-level failure that becomes an NMWG error result (never a SOAP fault):
 * the dotted error code goes in the metadata's eventType, the message in a result datum.
 */
public class NmwgException extends Exception {
    private final String code;

    public NmwgException(String code, String message) {
        super(message);
        this.code = code;
    }

    public NmwgException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The dotted error eventType, e.g. {@code error.common.parse_error}. */
    public String code() {
        return code;
    }

    /** A parameter a request is read by (raw, perHop, ...), malformed: error.common.parameter, not internal. */
    static <T> T strict(java.util.function.Supplier<T> read) throws NmwgException {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            throw new NmwgException(org.nmws.service.usecase.ErrorCodes.PARAMETER, e.getMessage());
        }
    }
}
