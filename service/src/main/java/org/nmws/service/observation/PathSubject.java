package org.nmws.service.observation;

/**
 * The subject of a path measurement: src to dst. A null src means "from this host",
 * as owamp and bwctl measurement points read a subject with only a dst.
 */
public record PathSubject(Endpoint src, Endpoint dst) {
    public PathSubject {
        if (dst == null) {
            throw new IllegalArgumentException("path subject has no dst");
        }
    }
}
