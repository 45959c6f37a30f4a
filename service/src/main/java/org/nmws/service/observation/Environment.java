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
     * (NTP/PTP), and the kernel's maximum and estimated error in microseconds.
     */
    public record Clock(String source, Boolean synchronised, Long maxErrorUs, Long estErrorUs, String state) {
    }
}
