package org.nmws.service.nmwg;

import org.nmws.service.observation.Namespaces;

import java.util.Map;
import org.glassfish.jaxb.runtime.marshaller.NamespacePrefixMapper;

/**
 * The prefixes NMWG documents conventionally use (nmwg, nmwgt, nmwgr, ...), so responses
 * read like the examples in the NMWG documents instead of ns2..ns12.
 */
final class NmwgPrefixes extends NamespacePrefixMapper {
    static final Map<String, String> PREFIXES = Map.ofEntries(
            Map.entry(Namespaces.BASE, "nmwg"),
            Map.entry(Namespaces.TOPOLOGY, "nmwgt"),
            Map.entry(Namespaces.RESULT, "nmwgr"),
            Map.entry(Namespaces.TIME, "nmtm"),
            Map.entry(Namespaces.SELECT, "select"),
            Map.entry(Namespaces.PING, "ping"),
            Map.entry(Namespaces.PINGER, "pinger"),
            Map.entry(Namespaces.ENVIRONMENT, "env"),
            Map.entry(Namespaces.COST, "cost"),
            Map.entry(Namespaces.OWAMP_SUMMARY, "summary"),
            Map.entry(Namespaces.OWD, "owd"),
            Map.entry(Namespaces.IPERF, "iperf"),
            Map.entry(Namespaces.TRACEROUTE, "traceroute"),
            Map.entry(Namespaces.NMWS_RESULT, "nmws"));

    @Override
    public String getPreferredPrefix(String namespaceUri, String suggestion, boolean requirePrefix) {
        return PREFIXES.getOrDefault(namespaceUri, suggestion);
    }
}
