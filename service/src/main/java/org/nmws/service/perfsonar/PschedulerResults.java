package org.nmws.service.perfsonar;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.nmws.service.observation.Observation;

/**
 * Stored results in pScheduler's JSON: the result of a test type (what a pScheduler tool
 * writes and that type's validate.py accepts) and the archive body pScheduler's archiver daemon
 * hands its http, rabbitmq and kafka archivers.
 *
 * <p>Stable entry points (the archivers send exactly these):
 * <ul>
 * <li>{@link #result(Observation)}: the result of the observation's own type;
 * {@link #result(Observation, PschedulerType)} for another (a UDP stream as throughput)</li>
 * <li>{@link #archiveBody(Observation)}: {@code {data, task-href, run-href, result: {id,
 * schedule, test, tool, run, task, participants, result, reference}, attempts, last-attempt}}
 * as archiver.raw builds it</li>
 * <li>{@link #httpBody(Observation)}: what the http archiver POSTs (the body's {@code result}),
 * as perfSONAR's Logstash receives it</li>
 * <li>{@link #runId(Observation)}: the run's UUID, one per stored result, for idempotent sends</li>
 * </ul>
 * A result whose test pScheduler has no type for gets {@link PschedulerType.NoForm}. Frames are
 * read from the observation as given: pass one read with its frames for the histograms,
 * round trips and intervals (a summary alone gives the counts and statistics).
 */
public final class PschedulerResults {
    /** The namespace of the run and task UUIDs (name-based, so a result keeps its ids). */
    private static final String RUN_NAME = "nmws-run:";
    private static final String TASK_NAME = "nmws-task:";

    private PschedulerResults() {
    }

    /** The result in the form of its own test's pScheduler type. */
    public static ObjectNode result(Observation o) {
        return ResultForms.result(o, PschedulerType.required(o));
    }

    /** The result written as the given type, if the observation's test fits it. */
    public static ObjectNode result(Observation o, PschedulerType type) {
        check(o, type);
        return ResultForms.result(o, type);
    }

    /** {@code {type, spec}}: the test as pScheduler names it, the part of a task the checksum is made of. */
    public static ObjectNode test(Observation o) {
        return test(o, PschedulerType.required(o));
    }

    public static ObjectNode test(Observation o, PschedulerType type) {
        check(o, type);
        ObjectNode t = ResultForms.JSON.objectNode();
        t.put("type", type.typeName());
        t.set("spec", SpecForms.spec(o, type));
        return t;
    }

    /** The whole archive body, as archiver.raw builds it, with the observation's own type. */
    public static ObjectNode archiveBody(Observation o) {
        return archiveBody(o, PschedulerType.required(o), uriHost(o));
    }

    /** The archive body with the result written as the given type (a UDP stream as throughput). */
    public static ObjectNode archiveBody(Observation o, PschedulerType type) {
        return archiveBody(o, type, uriHost(o));
    }

    /**
     * @param uriHost the host named in task-href and run-href (pScheduler's uri-host): perfSONAR's
     *     Logstash takes the observer (meta.observer) from it
     */
    public static ObjectNode archiveBody(Observation o, PschedulerType type, String uriHost) {
        check(o, type);
        String taskId = taskId(o, type).toString();
        String runId = runId(o).toString();
        String base = "https://" + bracketed(uriHost) + "/pscheduler";
        String taskHref = base + "/tasks/" + taskId;
        String runHref = taskHref + "/runs/" + runId;
        ObjectNode test = test(o, type);
        ObjectNode body = ResultForms.JSON.objectNode();
        body.putObject("data"); // the archiver's own data (its URL, ...), filled by the archiver that sends it
        body.put("task-href", taskHref);
        body.put("run-href", runHref);
        ObjectNode r = body.putObject("result");
        r.put("id", runId);
        ObjectNode schedule = r.putObject("schedule");
        schedule.put("start", Iso.instant(o.start()));
        schedule.put("duration", Iso.seconds(slotSeconds(o)));
        r.set("test", test);
        ObjectNode tool = r.putObject("tool");
        tool.put("name", o.tool());
        tool.put("version", o.toolVersion());
        ObjectNode run = r.putObject("run");
        run.put("href", runHref);
        run.put("task-href", taskHref);
        run.put("added", Iso.instant(o.start()));
        run.put("start-time", Iso.instant(o.start()));
        run.put("end-time", Iso.instant(o.end()));
        run.put("state", "finished");
        run.put("participant", 0);
        ObjectNode task = r.putObject("task");
        task.put("schema", 1);
        task.put("href", taskHref);
        task.set("test", test.deepCopy());
        task.put("tool", o.tool());
        task.putObject("schedule");
        ObjectNode detail = task.putObject("detail");
        detail.put("duration", Iso.seconds(slotSeconds(o)));
        detail.put("added", Iso.instant(o.start()));
        detail.put("participants", 1);
        r.putArray("participants").add(uriHost);
        r.set("result", ResultForms.result(o, type));
        // the task's reference (free JSON, as pSConfig keeps its own there) names the point that
        // measured: a grid read from OpenSearch puts the result in that point's row
        r.putObject("reference").putObject("nmws").put("measurement-point", o.measurementPoint());
        body.put("attempts", 0);
        body.putNull("last-attempt");
        return body;
    }

    /** What the http archiver POSTs: the archive body's result. */
    public static ObjectNode httpBody(Observation o) {
        return (ObjectNode) archiveBody(o).get("result");
    }

    /** The run's id: one UUID per stored result, the same each time it is written. */
    public static UUID runId(Observation o) {
        return UUID.nameUUIDFromBytes((RUN_NAME + o.measurementPoint() + ":" + o.id()).getBytes(StandardCharsets.UTF_8));
    }

    /** The task's id: one UUID per point, test and spec, so a series' runs share their task. */
    static UUID taskId(Observation o, PschedulerType type) {
        String name = TASK_NAME + o.measurementPoint() + ":" + o.tool() + ":" + RubyJson.canonical(test(o, type));
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    }

    /** The host a result was taken from, as pScheduler's uri-host: the address the probe sent from. */
    static String uriHost(Observation o) {
        if (o.srcAddress() != null && !o.srcAddress().isBlank()) {
            return o.srcAddress();
        }
        if (o.environment() != null && o.environment().src() != null && o.environment().src().address() != null) {
            return o.environment().src().address();
        }
        return o.measurementPoint();
    }

    /** 4 or 6 from the address reached; 0 when none was recorded. */
    static int ipVersion(Observation o) {
        String a = o.dstAddress();
        if (a == null || a.isBlank()) {
            return 0;
        }
        return a.indexOf(':') >= 0 ? 6 : 4;
    }

    /** The run's slot: the test's length rounded up to whole seconds, as pScheduler schedules them. */
    private static double slotSeconds(Observation o) {
        long ms = Math.max(0, Duration.between(o.start(), o.end()).toMillis());
        return Math.max(1, (ms + 999) / 1000);
    }

    private static String bracketed(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static void check(Observation o, PschedulerType type) {
        if (!type.fits(o.test())) {
            throw new PschedulerType.NoForm("result " + o.id() + " is a " + o.test().key() + " test: it has no pScheduler "
                    + type.typeName() + " form" + PschedulerType.of(o.test()).map(t -> " (its form is " + t.typeName() + ")")
                    .orElse(" (it has none)"));
        }
    }
}
