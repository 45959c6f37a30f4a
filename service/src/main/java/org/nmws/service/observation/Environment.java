package org.nmws.service.observation;

import java.util.List;

/**
 * Where a result was taken: both hosts as far as each is known, and the route between
 * them when it was traced. The test's parameters, tool and times live on the
 * {@link Observation} beside it.
 */
public record Environment(Host src, Host dst, List<RouteHop> route) {

    /** Without a route: the path was not traced. */
    public Environment(Host src, Host dst) {
        this(src, dst, null);
    }

    /**
     * One router on the path as a hop list saw it.
     *
     * @param address null when the hop did not answer
     * @param name its DNS name, when one resolved
     */
    public record RouteHop(int ttl, String address, String name) {
    }

    /**
     * One host. Fields the host could not tell are null (a remote host reports less).
     *
     * @param role src or dst
     */
    public record Host(String role, String name, String address, String kernel, String cpuModel,
                       Integer cpus, Nic nic, Clock clock, Load load) {
        /** The far end of a path: all a probe knows of it is the name it was given and the address it reached. */
        public static Host remote(String name, String address) {
            return new Host("dst", name, address, null, null, null, null, null, null);
        }

        public Host withLoad(Load newLoad) {
            return new Host(role, name, address, kernel, cpuModel, cpus, nic, clock, newLoad);
        }

        public Host withClock(Clock newClock) {
            return new Host(role, name, address, kernel, cpuModel, cpus, nic, newClock, load);
        }
    }

    /**
     * What the host did during the test: CPU busy share, interrupts taken, and datagrams the
     * kernel dropped at full socket buffers (host loss, told apart from network loss).
     */
    public record Load(Double cpuBusyPercent, Long interrupts, Long udpRcvbufErrors) {
    }

    /** The interface a test's traffic left or arrived by. */
    public record Nic(String name, String driver, Long speedMbps, Integer mtu) {
    }

    /**
     * The host clock: source (tsc, hpet, ...), whether the kernel considers it synchronised
     * (NTP/PTP), and the kernel's maximum and estimated error in microseconds; then what a
     * one-way delay can rely on: the reference the clock follows ("ptp:&lt;grandmaster&gt;" while
     * a ptp4l measures it against one, "utc" while the kernel says NTP keeps it, "none") and its
     * error bound against that reference in ns; and ptp4l's own figures when one runs.
     * stepNs: how far the clock was stepped while the test ran (set, not slewed: beyond what
     * NTP's 500 ppm could move it), null when it was not; one-way figures across a step are off
     * by about that much.
     */
    public record Clock(String source, Boolean synchronised, Long maxErrorUs, Long estErrorUs, String state,
                        String reference, Long errorNs, String ptpPortState, String ptpGrandmaster,
                        Long ptpOffsetNs, Long ptpPathDelayNs, Long stepNs) {
        /** The kernel's view alone (no reference stated). */
        public Clock(String source, Boolean synchronised, Long maxErrorUs, Long estErrorUs, String state) {
            this(source, synchronised, maxErrorUs, estErrorUs, state, null, null, null, null, null, null, null);
        }

        /** Without a step. */
        public Clock(String source, Boolean synchronised, Long maxErrorUs, Long estErrorUs, String state,
                     String reference, Long errorNs, String ptpPortState, String ptpGrandmaster,
                     Long ptpOffsetNs, Long ptpPathDelayNs) {
            this(source, synchronised, maxErrorUs, estErrorUs, state, reference, errorNs, ptpPortState, ptpGrandmaster,
                    ptpOffsetNs, ptpPathDelayNs, null);
        }

        /** A far end's clock as its responder stated it: its reference and error alone. */
        public static Clock stated(String reference, Long errorNs) {
            return new Clock(null, null, null, null, null, reference, errorNs, null, null, null, null, null);
        }

        /** This clock with the step seen while the test ran. */
        public Clock withStep(Long step) {
            return new Clock(source, synchronised, maxErrorUs, estErrorUs, state, reference, errorNs, ptpPortState,
                    ptpGrandmaster, ptpOffsetNs, ptpPathDelayNs, step);
        }
    }
}
