package org.nmws.service.measure;

import org.nmws.service.observation.Environment;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads this host's side of the observation environment from the kernel: /proc and /sys
 * for kernel, CPU, interface driver, speed and MTU, and the clock. What cannot be read
 * is left null rather than guessed.
 */
public class HostEnvironment {
    private static final Path SYS_NET = Path.of("/sys/class/net");
    private static final Path CLOCKSOURCE = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");

    private final String hostName;
    private final String kernel;
    private final String cpuModel;
    private final int cpus;
    private final Supplier<Environment.Clock> clock;
    /** The test's start, to tell a clock step during it; null outside a test. */
    private final ClockSteps.Mark testStart;

    /** @param clock reads the clock's synchronisation state and error (from the probe engine) */
    public HostEnvironment(Supplier<Environment.Clock> clock) {
        this.hostName = localHostName();
        this.kernel = firstLine(Path.of("/proc/sys/kernel/ostype")).map(t -> t + " ").orElse("")
                + firstLine(Path.of("/proc/sys/kernel/osrelease")).orElse(System.getProperty("os.version"));
        this.cpuModel = cpuModel();
        this.cpus = Runtime.getRuntime().availableProcessors();
        this.clock = clock;
        this.testStart = null;
    }

    private HostEnvironment(HostEnvironment of, ClockSteps.Mark testStart) {
        this.hostName = of.hostName;
        this.kernel = of.kernel;
        this.cpuModel = of.cpuModel;
        this.cpus = of.cpus;
        this.clock = of.clock;
        this.testStart = testStart;
    }

    /** This host as described for a test that started at the mark: its clock says whether it was stepped since. */
    HostEnvironment forTestFrom(ClockSteps.Mark start) {
        return new HostEnvironment(this, start);
    }

    private Environment.Clock clock() {
        Environment.Clock c = clock.get();
        Long step = testStart == null ? null : testStart.stepSince();
        return c == null || step == null ? c : c.withStep(step);
    }

    public String hostName() {
        return hostName;
    }

    /** This host as the given role, with the interface that owns localAddress. */
    public Environment.Host describe(String role, String localAddress) {
        return new Environment.Host(role, hostName, localAddress, kernel, cpuModel, cpus,
                nicFor(localAddress), clock(), null);
    }

    /** This host as the given role, described by one of its interfaces (passive measurements). */
    public Environment.Host describeInterface(String role, String ifName) {
        Path dir = SYS_NET.resolve(ifName);
        Integer mtu = firstLine(dir.resolve("mtu")).map(Integer::valueOf).orElse(null);
        return new Environment.Host(role, hostName, null, kernel, cpuModel, cpus,
                new Environment.Nic(ifName, driver(dir, ifName), speed(dir), mtu), clock(), null);
    }

    /** The clock source the kernel uses, e.g. tsc. */
    public static String clockSource() {
        return firstLine(CLOCKSOURCE).orElse(null);
    }

    static Environment.Nic nicFor(String address) {
        if (address == null) {
            return null;
        }
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(InetAddress.getByName(address));
            if (nif == null) {
                return null;
            }
            String name = nif.getName();
            Path dir = SYS_NET.resolve(name);
            return new Environment.Nic(name, driver(dir, name), speed(dir), nif.getMTU());
        } catch (UnknownHostException | SocketException e) {
            return null;
        }
    }

    /** The kernel driver bound to the interface; virtual devices have no device link. */
    private static String driver(Path dir, String name) {
        try {
            Path link = dir.resolve("device/driver");
            if (Files.exists(link)) {
                return link.toRealPath().getFileName().toString();
            }
        } catch (IOException e) {
            // fall through to the virtual kinds
        }
        if ("lo".equals(name)) {
            return "loopback";
        }
        Optional<String> kind = Files.isDirectory(dir.resolve("bridge")) ? Optional.of("bridge") : Optional.empty();
        return kind.orElse(Files.exists(dir) ? "virtual" : null);
    }

    private static Long speed(Path dir) {
        // The kernel answers EINVAL (or -1) for interfaces that have no link speed.
        return firstLine(dir.resolve("speed")).flatMap(s -> {
            try {
                long v = Long.parseLong(s);
                return v > 0 ? Optional.of(v) : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }).orElse(null);
    }

    private static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String l : lines) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux, or /proc unreadable
        }
        return null;
    }

    private static String localHostName() {
        return firstLine(Path.of("/proc/sys/kernel/hostname")).orElseGet(() -> {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                return "localhost";
            }
        });
    }

    static Optional<String> firstLine(Path p) {
        try {
            List<String> lines = Files.readAllLines(p);
            return lines.isEmpty() ? Optional.empty() : Optional.of(lines.get(0).trim());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
