package org.nmws.service.nmwg;

import java.util.Map;
import org.glassfish.jaxb.runtime.marshaller.NamespacePrefixMapper;

/**
 * The prefixes NMWG documents conventionally use (nmwg, nmwgt, nmwgr, ...), so responses
 * read like the examples in the NMWG documents instead of ns2..ns12.
 */
final class NmwgPrefixes extends NamespacePrefixMapper {
    static final Map<String, String> PREFIXES = Map.ofEntries(
            Map.entry(NmwgNamespaces.BASE, "nmwg"),
            Map.entry(NmwgNamespaces.TOPOLOGY, "nmwgt"),
            Map.entry(NmwgNamespaces.RESULT, "nmwgr"),
            Map.entry(NmwgNamespaces.TIME, "nmtm"),
            Map.entry(NmwgNamespaces.SELECT, "select"),
            Map.entry(NmwgNamespaces.PING, "ping"),
            Map.entry(NmwgNamespaces.PINGER, "pinger"),
            Map.entry(NmwgNamespaces.ENVIRONMENT, "env"),
            Map.entry("http://ggf.org/ns/nmwg/characteristic/delay/summary/20070921/", "summary"),
            Map.entry("http://ggf.org/ns/nmwg/characteristic/delay/one-way/20070914/", "owd"),
            Map.entry("http://ggf.org/ns/nmwg/tools/iperf/2.0/", "iperf"),
            Map.entry("http://ggf.org/ns/nmwg/tools/traceroute/2.0/", "traceroute"),
            Map.entry("http://nmws.org/ns/result/1.0/", "nmws"));

    @Override
    public String getPreferredPrefix(String namespaceUri, String suggestion, boolean requirePrefix) {
        return PREFIXES.getOrDefault(namespaceUri, suggestion);
    }
}
