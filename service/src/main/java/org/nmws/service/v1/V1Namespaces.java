package org.nmws.service.v1;

/** The GGF NM-WG v1 namespaces: the October 2004 one nmws writes, and the January 2004 draft it also reads. */
public final class V1Namespaces {
    public static final String V1 = "http://www.ggf.org/namespaces/2004/10/gridNetworkMonitoring";
    public static final String V1_DRAFT = "http://www.ggf.org/namespaces/2004/01/gridNetworkMonitoring";

    private V1Namespaces() {
    }

    public static boolean isV1(String ns) {
        return V1.equals(ns) || V1_DRAFT.equals(ns);
    }
}
