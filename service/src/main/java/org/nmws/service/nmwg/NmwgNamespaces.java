package org.nmws.service.nmwg;

/** The XML namespaces nmws reads and writes. */
public final class NmwgNamespaces {
    public static final String BASE = "http://ggf.org/ns/nmwg/base/2.0/";
    public static final String TOPOLOGY = "http://ggf.org/ns/nmwg/topology/2.0/";
    public static final String RESULT = "http://ggf.org/ns/nmwg/result/2.0/";
    public static final String TIME = "http://ggf.org/ns/nmwg/time/2.0/";
    public static final String SELECT = "http://ggf.org/ns/nmwg/ops/select/2.0/";
    public static final String PING = "http://ggf.org/ns/nmwg/tools/ping/2.0/";
    public static final String PINGER = "http://ggf.org/ns/nmwg/tools/pinger/2.0/";
    public static final String ENVIRONMENT = "http://nmws.org/ns/environment/1.0/";

    private NmwgNamespaces() {
    }
}
