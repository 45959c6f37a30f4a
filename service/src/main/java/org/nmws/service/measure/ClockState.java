package org.nmws.service.measure;

import org.nmws.service.observation.Environment;

import org.nmws.probe.Probe;
import org.nmws.probe.ProbeException;

/**
 * The host clock as the kernel reports it: the clock source, and from adjtimex(2) through
 * the probe engine whether NTP/PTP keeps it synchronised and the kernel's maximum and
 * estimated error, and from a running ptp4l its PTP state and the clock's error against the
 * grandmaster. Without the engine only the source is known.
 */
final class ClockState {
    private ClockState() {
    }

    /** @param ptpSocket ptp4l's management socket, null for the engine's default */
    static Environment.Clock read(String ptpSocket) {
        if (Probe.isAvailable()) {
            try {
                org.nmws.probe.ClockState c = Probe.clockState(ptpSocket);
                org.nmws.probe.ClockState.Ptp p = c.ptp();
                return new Environment.Clock(c.source(), c.synchronised(), c.maxErrorUs(), c.estErrorUs(), c.state(),
                        c.reference(), c.errorNs(), p == null ? null : p.portState(), p == null ? null : p.grandmaster(),
                        p == null ? null : p.offsetNs(), p == null ? null : p.pathDelayNs());
            } catch (ProbeException e) {
                // adjtimex refused: report what /sys tells
            }
        }
        return new Environment.Clock(HostEnvironment.clockSource(), null, null, null, "unknown");
    }
}
