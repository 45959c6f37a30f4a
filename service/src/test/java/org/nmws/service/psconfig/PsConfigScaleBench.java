package org.nmws.service.psconfig;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.nmws.service.NmwsProperties;
import org.nmws.service.archive.TestArchives;
import org.nmws.service.kind.Kinds;
import org.nmws.service.measure.HostEnvironment;
import org.nmws.service.measure.MeasurementService;
import org.nmws.service.measure.RunningTests;
import org.nmws.service.measure.TestAdmission;
import org.nmws.service.schedule.ScheduleService;
import org.nmws.service.schedule.ScheduleStore;
import org.nmws.service.schedule.SlotPlanning;

/**
 * A point's share of a national-size pSConfig template (issue 24 item 3, bench/psconfig/run.sh):
 * 600 addresses, 144 tasks, about 18,000 test combinations under pSConfig's rules, shaped like
 * the public template the issue counts (the busiest point the source of some 450 tests, 290 of
 * them continuous one-way latency). Times reading it (JSON, includes, schema), this point's
 * plan, applying the plan as schedules to a SQLite archive (first and unchanged), and planning
 * their slots for two minutes; and the heap the template and plan hold. Not a test: its numbers
 * depend on the machine.
 */
public final class PsConfigScaleBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int ADDRESSES = 600;

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory(args.length > 0 ? Path.of(args[0]) : Path.of("/tmp"), "psconfig-bench");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Path file = dir.resolve("template.json");
        Files.writeString(file, JSON.writeValueAsString(template()));
        System.out.printf("template: %d addresses, %d tasks, %.0f KB%n", ADDRESSES, template().path("tasks").size(),
                Files.size(file) / 1024.0);
        TemplateReader reader = new TemplateReader();
        String me = address(0);
        long[] read = new long[rounds];
        long[] plan = new long[rounds];
        Plan mine = null;
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            TemplateReader.Read r = reader.read(file.toString());
            long t1 = System.nanoTime();
            mine = new Planner(Set.of(me)::contains).plan(r.template());
            long t2 = System.nanoTime();
            read[i] = t1 - t0;
            plan[i] = t2 - t1;
        }
        long continuous = mine.runs().stream().filter(p -> Boolean.TRUE.equals(p.request().continuous())).count();
        // every point's share: the template's test combinations under pSConfig's rules
        var template = reader.read(file.toString()).template();
        long combos = 0;
        long t0 = System.nanoTime();
        for (int a = 0; a < ADDRESSES; a++) {
            Plan p = new Planner(Set.of(address(a))::contains).plan(template);
            combos += p.runs().size() + p.notRun().stream().filter(n -> n.pair() != null).count();
        }
        long everyPoint = System.nanoTime() - t0;
        System.out.println();
        System.out.println("| step | p50 | max |");
        System.out.println("|---|---|---|");
        row("read (parse, includes, schema)", read);
        row("this point's plan (" + mine.runs().size() + " schedules, " + continuous + " continuous)", plan);
        System.out.printf("| every point's plan, one after another (%d combinations) | %.0f ms | |%n", combos, everyPoint / 1e6);
        System.gc();
        Runtime rt = Runtime.getRuntime();
        System.out.printf("| heap in use after GC, template and plan held | %.1f MB | |%n",
                (rt.totalMemory() - rt.freeMemory()) / 1e6);

        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
        try (TestArchives.Store s = TestArchives.sqliteStore(dir, null)) {
            // the service's default limits (a test of at most 120 s: a continuous stream's chunk is 60 s)
            NmwsProperties props = new NmwsProperties(dir, "bench", 8700, new NmwsProperties.Xml(65536, 32),
                    new NmwsProperties.Limits(1000, Duration.ofSeconds(120), 8, 4, List.of(), 0, 100_000, 0));
            MeasurementService measurements = new MeasurementService(s.archive(), new HostEnvironment(() -> null), props,
                    new RunningTests(), new TestAdmission(List.of(), 0, System::nanoTime), Kinds.measurementKinds(), watchdog);
            ScheduleStore store = new ScheduleStore(s.jdbc(), JSON);
            ScheduleService schedules = new ScheduleService(store, measurements, 0);
            PsConfigAgent agent = new PsConfigAgent(file.toString(), Duration.ofHours(1), new Planner(Set.of(me)::contains),
                    schedules, store, "bench", Clock.systemUTC());
            long a0 = System.nanoTime();
            agent.readAndApply();
            long a1 = System.nanoTime();
            agent.readAndApply();
            long a2 = System.nanoTime();
            int kept = store.of("bench").size();
            int slots = SlotPlanning.planAll(store, "bench", Instant.now(), Duration.ofMinutes(2));
            long a3 = System.nanoTime();
            System.out.printf("| applied as schedules, first read (%d kept, %d not run) | %.0f ms | |%n", kept,
                    agent.state().plan().notRun().size(), (a1 - a0) / 1e6);
            System.out.printf("| applied again, template unchanged | %.0f ms | |%n", (a2 - a1) / 1e6);
            System.out.printf("| slots planned for 2 minutes (%d runs) | %.0f ms | |%n", slots, (a3 - a2) / 1e6);
        } finally {
            watchdog.shutdownNow();
        }
    }

    private static void row(String what, long[] ns) {
        long[] s = ns.clone();
        Arrays.sort(s);
        System.out.printf("| %s | %.1f ms | %.1f ms |%n", what, s[s.length / 2] / 1e6, s[s.length - 1] / 1e6);
    }

    static String address(int i) {
        return "10.20." + (i / 250) + "." + (i % 250 + 1);
    }

    /** Address i in the pool of groups that leave point 0 out: 1..599 in turn. */
    private static int other(int k) {
        return 1 + Math.floorMod(k, ADDRESSES - 1);
    }

    static ObjectNode template() {
        ObjectNode t = JSON.createObjectNode();
        ObjectNode addresses = t.putObject("addresses");
        for (int i = 0; i < ADDRESSES; i++) {
            addresses.putObject("h" + i).put("address", address(i));
        }
        ObjectNode groups = t.putObject("groups");
        ObjectNode tests = t.putObject("tests");
        tests.putObject("latencybg").put("type", "latencybg").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("packet-interval", 0.1);
        tests.putObject("throughput").put("type", "throughput").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("duration", "PT20S");
        tests.putObject("trace").put("type", "trace").putObject("spec").put("dest", "{% address[1] %}");
        tests.putObject("rtt").put("type", "rtt").putObject("spec").put("source", "{% address[0] %}")
                .put("dest", "{% address[1] %}").put("count", 10);
        ObjectNode schedules = t.putObject("schedules");
        schedules.putObject("every-6h").put("repeat", "PT6H").put("slip", "PT6H").put("sliprand", true);
        schedules.putObject("every-10m").put("repeat", "PT10M").put("slip", "PT5M").put("sliprand", true);
        ObjectNode tasks = t.putObject("tasks");
        int k = 0;
        // 10 latency meshes of 30, each holding point 0: 290 continuous streams from it
        for (int g = 0; g < 10; g++) {
            ArrayNode members = groups.putObject("latency-" + g).put("type", "mesh").putArray("addresses");
            members.addObject().put("name", "h0");
            for (int m = 0; m < 29; m++) {
                members.addObject().put("name", "h" + other(k++));
            }
            tasks.putObject("latency-" + g).put("group", "latency-" + g).put("test", "latencybg");
        }
        // 10 throughput meshes of 17 with a throughput and a trace task each, half holding point 0
        for (int g = 0; g < 10; g++) {
            ArrayNode members = groups.putObject("bw-" + g).put("type", "mesh").putArray("addresses");
            if (g % 2 == 0) {
                members.addObject().put("name", "h0");
            } else {
                members.addObject().put("name", "h" + other(k++));
            }
            for (int m = 0; m < 16; m++) {
                members.addObject().put("name", "h" + other(k++));
            }
            tasks.putObject("bw-" + g).put("group", "bw-" + g).put("test", "throughput").put("schedule", "every-6h");
            tasks.putObject("trace-" + g).put("group", "bw-" + g).put("test", "trace").put("schedule", "every-10m");
        }
        // 114 disjoint groups, one address to 17, both ways: the regional tasks
        for (int g = 0; g < 114; g++) {
            ObjectNode d = groups.putObject("region-" + g).put("type", "disjoint");
            d.putArray("a-addresses").addObject().put("name", "h" + other(k++));
            ArrayNode b = d.putArray("b-addresses");
            for (int m = 0; m < 17; m++) {
                b.addObject().put("name", "h" + other(k++));
            }
            tasks.putObject("region-" + g).put("group", "region-" + g).put("test", "rtt").put("schedule", "every-10m");
        }
        return t;
    }

    static List<String> all() {
        List<String> a = new ArrayList<>();
        for (int i = 0; i < ADDRESSES; i++) {
            a.add(address(i));
        }
        return a;
    }
}
