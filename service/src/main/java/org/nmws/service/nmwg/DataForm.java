package org.nmws.service.nmwg;

import org.nmws.service.observation.Observation;

/**
 * How the results of one kind of test are written as NMWG data: the datums its clients read
 * (PingER, owamp, iperf, traceroute, SNMP forms) and nmws figures for the rest. The rules are
 * {@link NmwgForms}'s table; the units come from the kind.
 */
@FunctionalInterface
public interface DataForm {

    /** Writes an observation's datums; per-frame datums only when raw. */
    void write(NmwgData out, Observation o, boolean raw, NmwgForms.Units units);
}
