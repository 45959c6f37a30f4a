package org.nmws.service.measure;

/** What a kind's test needs at the far end of its path. */
public enum FarEnd {
    /** nmprobe-responder (the host agreed by running it); keyed when the responder demands a key. */
    RESPONDER,
    /** any STAMP / TWAMP-Light session-reflector (RFC 8762), nmws's or another's. */
    STAMP_REFLECTOR,
    /**
     * an OWAMP or TWAMP server (owampd, twampd, a router, nmprobe-owampd): it agrees on its
     * control connection, and no test packet leaves before it accepted the session.
     */
    OWAMP_TWAMP_SERVER,
    /** nothing: routers answer TTL expiry as they do for traceroute, bounded towards hosts that did not agree. */
    ROUTERS,
    /** nothing at all: a passive reading of this host's counters. */
    NONE
}
