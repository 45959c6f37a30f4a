package org.nmws.service.archive;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.nmws.service.observation.Environment;
import org.nmws.service.observation.Environment.Clock;
import org.nmws.service.observation.Environment.Host;
import org.nmws.service.observation.Environment.Load;

/**
 * An environment split for storage. The description (hosts, kernel, NIC, clock source and
 * sync state) repeats test after test and is kept once in table environment; what changes
 * with every test (the clock's error estimates, the hosts' load, and the route a hop list
 * traced) stays on the observation row. The description was ~700 bytes of JSON in every row;
 * the per-test part is a few dozen bytes (more with a route).
 *
 * @param description the environment without per-test figures
 * @param perTest those figures, to put back with {@link #join}
 */
record EnvironmentParts(Environment description, PerTest perTest) {

    /**
     * Per host: the clock's maximum and estimated error, its reference and error against it with
     * ptp4l's figures, and the load during the test. Rows written before the reference have
     * only the first three.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record HostFigures(Long maxErrorUs, Long estErrorUs, Load load, String reference, Long errorNs,
                       String ptpPortState, String ptpGrandmaster, Long ptpOffsetNs, Long ptpPathDelayNs, Long stepNs) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record PerTest(HostFigures src, HostFigures dst, List<Environment.RouteHop> route) {
    }

    static EnvironmentParts of(Environment e) {
        return new EnvironmentParts(new Environment(describe(e.src()), describe(e.dst()), null),
                new PerTest(figures(e.src()), figures(e.dst()), e.route()));
    }

    /** The environment as it was measured. */
    Environment join() {
        return new Environment(join(description.src(), perTest.src()), join(description.dst(), perTest.dst()),
                perTest.route());
    }

    private static Host describe(Host h) {
        if (h == null) {
            return null;
        }
        Clock c = h.clock();
        Clock stable = c == null ? null : new Clock(c.source(), c.synchronised(), null, null, c.state());
        return new Host(h.role(), h.name(), h.address(), h.kernel(), h.cpuModel(), h.cpus(), h.nic(), stable, null);
    }

    private static HostFigures figures(Host h) {
        if (h == null) {
            return null;
        }
        Clock c = h.clock();
        HostFigures f = c == null ? new HostFigures(null, null, h.load(), null, null, null, null, null, null, null)
                : new HostFigures(c.maxErrorUs(), c.estErrorUs(), h.load(), c.reference(), c.errorNs(), c.ptpPortState(),
                        c.ptpGrandmaster(), c.ptpOffsetNs(), c.ptpPathDelayNs(), c.stepNs());
        return f.equals(new HostFigures(null, null, null, null, null, null, null, null, null, null)) ? null : f;
    }

    private static Host join(Host h, HostFigures f) {
        if (h == null || f == null) {
            return h;
        }
        Clock c = h.clock();
        Clock measured = c == null ? null : new Clock(c.source(), c.synchronised(), f.maxErrorUs(), f.estErrorUs(), c.state(),
                f.reference(), f.errorNs(), f.ptpPortState(), f.ptpGrandmaster(), f.ptpOffsetNs(), f.ptpPathDelayNs(),
                f.stepNs());
        return new Host(h.role(), h.name(), h.address(), h.kernel(), h.cpuModel(), h.cpus(), h.nic(), measured, f.load());
    }
}
