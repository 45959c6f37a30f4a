package org.nmws.service.observation;

/**
 * Every XML namespace nmws reads or writes, in one table: the NMWG v2 ones, the tool and
 * characteristic namespaces of the answers clients read, nmws's own, and GGF NM-WG v1.
 */
public final class Namespaces {
    public static final String BASE = "http://ggf.org/ns/nmwg/base/2.0/";
    public static final String TOPOLOGY = "http://ggf.org/ns/nmwg/topology/2.0/";
    public static final String RESULT = "http://ggf.org/ns/nmwg/result/2.0/";
    public static final String TIME = "http://ggf.org/ns/nmwg/time/2.0/";
    public static final String SELECT = "http://ggf.org/ns/nmwg/ops/select/2.0/";
    public static final String PING = "http://ggf.org/ns/nmwg/tools/ping/2.0/";
    public static final String PINGER = "http://ggf.org/ns/nmwg/tools/pinger/2.0/";
    public static final String OWAMP_SUMMARY = "http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921/";
    public static final String OWD = "http://ggf.org/ns/nmwg/characteristic/delay/one-way/20070914/";
    public static final String IPERF = "http://ggf.org/ns/nmwg/tools/iperf/2.0/";
    public static final String TRACEROUTE = "http://ggf.org/ns/nmwg/tools/traceroute/2.0/";
    /** nmws: the observation environment of every result. */
    public static final String ENVIRONMENT = "http://nmws.org/ns/environment/1.0/";
    /** nmws: figures, TCP_INFO samples and other result elements NMWG has no slot for. */
    public static final String NMWS_RESULT = "http://nmws.org/ns/result/1.0/";
    /** nmws: archive attributes of an exported nmwg:store. */
    public static final String ARCHIVE = "http://nmws.org/ns/archive/1.0/";
    /** nmws: what a transfer costs and why a path is slow (cost:datum, cost:diagnosis), and the cost eventType. */
    public static final String COST = "http://nmws.org/ns/cost/1.0/";
    /** nmws: the diagnosis eventType ("why is this path slow"). */
    public static final String DIAGNOSIS = "http://nmws.org/ns/diagnosis/1.0/";
    /** nmws: the WSDL's target namespace. */
    public static final String SERVICE = "http://nmws.org/ns/service/1.0/";
    /** GGF NM-WG v1, October 2004: what nmws writes. */
    public static final String V1 = "http://www.ggf.org/namespaces/2004/10/gridNetworkMonitoring";
    /** GGF NM-WG v1, the January 2004 draft nmws also reads. */
    public static final String V1_DRAFT = "http://www.ggf.org/namespaces/2004/01/gridNetworkMonitoring";

    private Namespaces() {
    }

    public static boolean isV1(String ns) {
        return V1.equals(ns) || V1_DRAFT.equals(ns);
    }
}
