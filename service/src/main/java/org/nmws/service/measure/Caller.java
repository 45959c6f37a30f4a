package org.nmws.service.measure;

/**
 * Who asks: built once by the transport that received the request and handed down
 * explicitly, so every use case decides authorization from it before anything is run,
 * forwarded, scheduled or refreshed, and nothing below the transports reads thread-locals.
 *
 * @param address the client's address as the servlet container saw it; null for the service itself
 *                (a schedule, a refresh the service decided on)
 * @param account the authenticated account or API key name; null for an anonymous client
 * @param mayMeasure whether the caller holds the measure role (or is the service)
 * @param admin whether the caller holds the admin role
 * @param limits what this caller may ask of the probe beyond the service's own limits
 * @param forwardedBy the mesh point that forwarded this request, or null; a forwarded request is never forwarded on
 * @param budget the tests this request may still start (one message's share), or null for no such bound
 */
public record Caller(String address, String account, boolean mayMeasure, boolean admin, ClientLimits limits,
                     String forwardedBy, TestBudget budget) {

    /** The service acting on its own behalf: no address, no rates charged, no limits beyond the service's. */
    public static final Caller SERVICE = new Caller(null, null, true, true, ClientLimits.NONE, null);

    /** A caller whose requests start as many tests as their other limits allow. */
    public Caller(String address, String account, boolean mayMeasure, boolean admin, ClientLimits limits,
                  String forwardedBy) {
        this(address, account, mayMeasure, admin, limits, forwardedBy, null);
    }

    /** The same caller, starting at most the budget's tests for the message it sent. */
    public Caller withBudget(TestBudget newBudget) {
        return new Caller(address, account, mayMeasure, admin, limits, forwardedBy, newBudget);
    }

    public Caller {
        if (limits == null) {
            limits = ClientLimits.NONE;
        }
    }

    /** Whether this is the service itself rather than a remote client. */
    public boolean internal() {
        return address == null;
    }

    /** Who a quota and a running test's ownership are kept for: the account, else the address. */
    public String owner() {
        if (internal()) {
            return null;
        }
        return account != null ? "account " + account : "address " + address;
    }

    /** Refuses a caller that may not start tests (the same words on every transport). */
    public void requireMeasure() throws MeasurementException {
        if (!mayMeasure) {
            throw new MeasurementException(MeasurementException.Kind.DENIED, "starting tests needs the measure role: "
                    + "authenticate (HTTP Basic or an API key over https, or a WS-Security UsernameToken) or connect "
                    + "from an address in nmws.limits.test-clients; this client may query stored results");
        }
    }
}
