package org.nmws.service.measure;

import org.nmws.service.observation.Environment;

import org.nmws.probe.Probe;
import org.nmws.probe.ProbeException;

/**
 * The host clock as the kernel reports it: the clock source, and from adjtimex(2) through
 * the probe engine whether NTP/PTP keeps it synchronised and the kernel's maximum and
 * estimated error. Without the engine only the source is known.
 */
final class ClockState {
    private ClockState() {
    }

    static Environment.Clock read() {
        if (Probe.isAvailable()) {
            try {
                org.nmws.probe.ClockState c = Probe.clockState();
                return new Environment.Clock(c.source(), c.synchronised(), c.maxErrorUs(), c.estErrorUs(), c.state());
            } catch (ProbeException e) {
                // adjtimex refused: report what /sys tells
            }
        }
        return new Environment.Clock(HostEnvironment.clockSource(), null, null, null, "unknown");
    }
}
