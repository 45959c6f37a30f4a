package org.nmws.service.nmwg;

import org.nmws.service.observation.Characteristic;
import org.nmws.service.observation.Observation;

/**
 * How the results of one kind of test are written as NMWG data: the datums its clients read
 * (PingER, owamp, iperf, traceroute, SNMP forms) and nmws figures for the rest. Implemented
 * by each measurement kind, next to how it runs.
 */
public interface DataForm {

    /** The test whose results this form writes. */
    Characteristic.ProbeTest test();

    /** Writes an observation's datums; per-frame datums only when raw. */
    void write(NmwgData out, Observation o, boolean raw);
}
