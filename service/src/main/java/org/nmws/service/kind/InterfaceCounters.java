package org.nmws.service.kind;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Reads an interface's byte, packet, error and drop counters from the kernel
 * (/sys/class/net/IF/statistics), as an SNMP agent would from IF-MIB. Written by hand: it
 * is eight small files, and no library reads them better than Files.readString.
 */
final class InterfaceCounters {
    private static final Path SYS_NET = Path.of("/sys/class/net");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:@-]{1,15}");

    /** One reading of the counters, with the monotonic and wall-clock time it was taken. */
    record Sample(long monoNanos, long epochNanos, long rxBytes, long txBytes, long rxPackets, long txPackets,
                  long rxErrors, long txErrors, long rxDropped, long txDropped) {
    }

    private InterfaceCounters() {
    }

    /** Checks an interface name a client sent (no path tricks) and that the interface exists here. */
    static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("interface name '" + name + "' is not a valid Linux interface name");
        }
        if (!Files.isDirectory(SYS_NET.resolve(name).resolve("statistics"))) {
            throw new IllegalArgumentException("interface " + name + " does not exist on this measurement point");
        }
        return name;
    }

    static Sample read(String name) throws IOException {
        Path st = SYS_NET.resolve(name).resolve("statistics");
        long mono = System.nanoTime();
        java.time.Instant now = java.time.Instant.now();
        return new Sample(mono, now.getEpochSecond() * 1_000_000_000L + now.getNano(),
                counter(st, "rx_bytes"), counter(st, "tx_bytes"), counter(st, "rx_packets"), counter(st, "tx_packets"),
                counter(st, "rx_errors"), counter(st, "tx_errors"), counter(st, "rx_dropped"), counter(st, "tx_dropped"));
    }

    /** The interface speed in Mbit/s, or null when the kernel has none (virtual devices may say -1). */
    static Long speedMbps(String name) {
        try {
            long v = Long.parseLong(Files.readString(SYS_NET.resolve(name).resolve("speed")).trim());
            return v > 0 ? v : null;
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    private static long counter(Path dir, String file) throws IOException {
        return Long.parseLong(Files.readString(dir.resolve(file)).trim());
    }
}
