package org.nmws.service.archiver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.nmws.service.archive.Archive;
import org.nmws.service.archive.ArchiveTarget;
import org.nmws.service.archive.Outbox;
import org.nmws.service.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Delivers the outbox: a thread per archiver (http, opensearch, rabbitmq, kafka) reads its due
 * rows in batches, oldest first, sends each archive's share through that archive's
 * {@link Sender}, and removes a row only once the archive acknowledged it. A failed attempt is
 * tried again after an exponential back-off with jitter (backoff-min doubling up to
 * backoff-max) until the row's ttl has run out, when it is given up and counted as expired;
 * an archive that refuses a result for good (a 4xx, a body it cannot take) has it counted as
 * failed. Rows left by an earlier run are picked up at start. Figures per archive go to
 * Micrometer and to {@link #state()}.
 */
public final class Delivery implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(Delivery.class);

    /** What one archive's delivery has done since start. */
    static final class Stats {
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong retried = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong expired = new AtomicLong();
        volatile String lastError;
        volatile Instant lastErrorAt;
        volatile Instant lastDeliveredAt;
    }

    private final Outbox outbox;
    private final Archive archive;
    private final ResultBodies bodies;
    private final ArchiverProperties props;
    private final MeterRegistry registry;
    private final ObjectMapper json;
    private final Clock clock;
    private final Map<Long, Stats> stats = new ConcurrentHashMap<>();
    private final Map<Long, Sender> senders = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private final AtomicLong wakeUps = new AtomicLong();
    private volatile boolean running;

    public Delivery(Outbox outbox, Archive archive, ResultBodies bodies, ArchiverProperties props, MeterRegistry registry,
                    ObjectMapper json, Clock clock) {
        this.outbox = outbox;
        this.archive = archive;
        this.bodies = bodies;
        this.props = props;
        this.registry = registry;
        this.json = json;
        this.clock = clock;
        outbox.onAdded(this::wake);
    }

    /** New rows: the delivery threads look at once rather than at their next poll. */
    void wake() {
        wakeUps.incrementAndGet();
        lock.lock();
        try {
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void start() {
        running = true;
        Map<Long, Long> backlog = outbox.refreshBacklog();
        for (Outbox.Target t : outbox.targets()) {
            statsOf(t.id(), t.target());
        }
        long waiting = backlog.values().stream().mapToLong(Long::longValue).sum();
        if (waiting > 0) {
            log.info("{} results wait in the outbox from before this start; delivering them", waiting);
        }
        // counted also while delivery is off: the gauges and the bound hold
        Thread counter = new Thread(this::countLoop, "nmws-archiver-backlog");
        counter.setDaemon(true);
        threads.add(counter);
        counter.start();
        if (!props.enabled()) {
            log.info("delivery to archives is off (nmws.archivers.enabled=false): results wait in the outbox");
            return;
        }
        for (String archiver : new java.util.TreeSet<>(ArchiveTarget.ARCHIVERS)) {
            Thread t = new Thread(() -> loop(archiver), "nmws-archiver-" + archiver);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    @Override
    public void stop() {
        running = false;
        wake();
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        threads.clear();
        senders.values().forEach(Delivery::closeQuietly);
        senders.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops before the archive's database closes, after the scheduler (which stops first: higher phase). */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 2000;
    }

    private void countLoop() {
        while (running) {
            try {
                outbox.refreshBacklog();
                Thread.sleep(2000);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.debug("counting the outbox failed: {}", e.toString()); // the database is down: counted again later
                try {
                    Thread.sleep(2000);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    private void loop(String archiver) {
        while (running) {
            long seen = wakeUps.get();
            long sleepMs = props.poll().toMillis();
            try {
                int done = pass(archiver);
                if (done > 0) {
                    continue; // more may be due: no sleep between full batches
                }
                Optional<Long> next = outbox.nextDue(archiver);
                if (next.isPresent()) {
                    sleepMs = Math.max(0, Math.min(sleepMs, next.get() - clock.millis()));
                }
            } catch (RuntimeException e) {
                log.warn("delivering to {} archives failed: {}", archiver, e.toString()); // the database is down, say
            }
            if (sleepMs == 0) {
                continue;
            }
            lock.lock();
            try {
                if (wakeUps.get() == seen && running) {
                    woken.await(sleepMs, java.util.concurrent.TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * One batch of an archiver's due rows, on the caller's thread (the delivery threads call it
     * in a loop; tests and the benchmark call it directly); returns how many rows it settled
     * or rescheduled.
     */
    public int pass(String archiver) {
        List<Outbox.Row> rows = outbox.due(archiver, props.batch());
        if (rows.isEmpty()) {
            return 0;
        }
        Map<Long, List<Outbox.Row>> byTarget = new LinkedHashMap<>();
        for (Outbox.Row r : rows) {
            byTarget.computeIfAbsent(r.targetId(), k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<Long, List<Outbox.Row>> e : byTarget.entrySet()) {
            deliver(e.getKey(), e.getValue());
        }
        return rows.size();
    }

    private void deliver(long targetId, List<Outbox.Row> rows) {
        Optional<ArchiveTarget> found = outbox.target(targetId);
        if (found.isEmpty()) {
            log.error("{} outbox rows name archive {}, which is not in archive_target; removed", rows.size(), targetId);
            outbox.remove(rows.stream().map(Outbox.Row::id).toList());
            return;
        }
        ArchiveTarget target = found.get();
        Stats s = statsOf(targetId, target);
        long now = clock.millis();
        List<Long> gone = new ArrayList<>();
        List<Sender.Item> items = new ArrayList<>();
        Map<Long, Outbox.Row> rowOf = new HashMap<>();
        for (Outbox.Row r : rows) {
            if (now >= r.expiresMs()) {
                expire(s, target, r, "its ttl ran out after " + r.attempts() + " attempts");
                gone.add(r.id());
                continue;
            }
            Optional<Observation> o = archive.findById(r.observationId(), true); // frames: the histograms and round trips
            if (o.isEmpty()) {
                fail(s, target, r, "the result is no longer in this point's archive (retention removed it)");
                gone.add(r.id());
                continue;
            }
            try {
                String type = bodies.testType(o.get());
                ObjectNode body = target.archiver().equals("opensearch") ? bodies.openSearchDocument(o.get())
                        : bodies.archiveBody(o.get());
                items.add(new Sender.Item(r.id(), bodies.id(o.get()), type, body));
                rowOf.put(r.id(), r);
            } catch (ResultBodies.NoForm | RuntimeException bad) {
                fail(s, target, r, "no pScheduler form: " + bad.getMessage());
                gone.add(r.id());
            }
        }
        outbox.remove(gone);
        if (items.isEmpty()) {
            return;
        }
        List<Sender.Outcome> outcomes;
        try {
            outcomes = sender(targetId, target).send(items);
        } catch (Exception e) {
            closeQuietly(senders.remove(targetId));
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String why = target.destination() + ": " + e;
            outcomes = items.stream().map(i -> Sender.Outcome.retry(why)).toList();
        }
        List<Long> delivered = new ArrayList<>();
        List<Long> settled = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Outbox.Row r = rowOf.get(items.get(i).rowId());
            Sender.Outcome out = outcomes.get(i);
            switch (out.status()) {
                case DELIVERED -> delivered.add(r.id());
                case REJECTED -> {
                    fail(s, target, r, out.error());
                    settled.add(r.id());
                }
                case RETRY -> {
                    int attempts = r.attempts() + 1;
                    long next = clock.millis() + backoff(attempts);
                    if (next >= r.expiresMs()) {
                        expire(s, target, r, "its ttl runs out before the next attempt; last: " + out.error());
                        settled.add(r.id());
                    } else {
                        outbox.retry(r.id(), attempts, next, out.error());
                        s.retried.incrementAndGet();
                        s.lastError = out.error();
                        s.lastErrorAt = clock.instant();
                    }
                }
                default -> throw new IllegalStateException(out.status().toString());
            }
        }
        outbox.remove(delivered);
        outbox.remove(settled);
        if (!delivered.isEmpty()) {
            s.delivered.addAndGet(delivered.size());
            s.lastDeliveredAt = clock.instant();
        }
        if (delivered.size() < items.size()) {
            log.warn("archive {} ({} at {}): {} of {} results not delivered this time: {}", target.name(), target.archiver(),
                    target.destination(), items.size() - delivered.size(), items.size(), s.lastError);
        }
    }

    /** The wait before attempt n+1: backoff-min * 2^(n-1), at most backoff-max, less up to a fifth at random. */
    long backoff(int attempts) {
        long min = props.backoffMin().toMillis();
        long max = props.backoffMax().toMillis();
        long wait = attempts >= 40 ? max : Math.min(max, min << Math.min(attempts - 1, 40));
        return wait - ThreadLocalRandom.current().nextLong(wait / 5 + 1);
    }

    private void fail(Stats s, ArchiveTarget t, Outbox.Row r, String why) {
        s.failed.incrementAndGet();
        s.lastError = why;
        s.lastErrorAt = clock.instant();
        log.error("result {} not delivered to archive {} ({} at {}): {}", r.resultKey(), t.name(), t.archiver(), t.destination(), why);
    }

    private void expire(Stats s, ArchiveTarget t, Outbox.Row r, String why) {
        s.expired.incrementAndGet();
        s.lastError = why;
        s.lastErrorAt = clock.instant();
        log.error("result {} given up for archive {} ({} at {}): {}", r.resultKey(), t.name(), t.archiver(), t.destination(), why);
    }

    private Sender sender(long targetId, ArchiveTarget t) {
        return senders.computeIfAbsent(targetId, id -> switch (t.archiver()) {
            case "http" -> new HttpSender(t);
            case "opensearch" -> new OpenSearchSender(t, json);
            case "rabbitmq" -> new RabbitMqSender(t);
            case "kafka" -> new KafkaSender(t, outbox.point());
            default -> throw new IllegalStateException("no sender for archiver " + t.archiver());
        });
    }

    private static void closeQuietly(Sender s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (RuntimeException e) {
            log.debug("closing an archiver's sender: {}", e.toString());
        }
    }

    private Stats statsOf(long targetId, ArchiveTarget t) {
        return stats.computeIfAbsent(targetId, id -> {
            Stats s = new Stats();
            Tags tags = Tags.of("archive", t.name(), "archiver", t.archiver());
            Gauge.builder("nmws.archive.outbox.backlog", outbox, o -> o.backlog().getOrDefault(id, 0L))
                    .tags(tags).description("results waiting in the outbox for this archive").register(registry);
            FunctionCounter.builder("nmws.archive.delivered", s, x -> x.delivered.get()).tags(tags)
                    .description("results the archive acknowledged").register(registry);
            FunctionCounter.builder("nmws.archive.retried", s, x -> x.retried.get()).tags(tags)
                    .description("failed attempts that will be tried again").register(registry);
            FunctionCounter.builder("nmws.archive.failed", s, x -> x.failed.get()).tags(tags)
                    .description("results the archive refused for good, or that had no form to send").register(registry);
            FunctionCounter.builder("nmws.archive.expired", s, x -> x.expired.get()).tags(tags)
                    .description("results given up when their ttl ran out").register(registry);
            return s;
        });
    }

    /** Each archive this point delivers to, with its figures: what GET /api/archivers shows. */
    public List<Map<String, Object>> state() {
        Map<Long, ObjectNode> rows;
        try {
            rows = outbox.state();
        } catch (RuntimeException e) {
            rows = Map.of(); // the database is down: the counters still tell
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Outbox.Target t : outbox.targets()) {
            Stats s = statsOf(t.id(), t.target());
            ObjectNode r = rows.get(t.id());
            long backlog = r == null ? 0 : r.path("backlog").asLong();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", t.target().name());
            m.put("archiver", t.target().archiver());
            m.put("destination", t.target().destination());
            m.put("ttl", (t.target().ttl() == null ? props.defaultTtl() : t.target().ttl()).toString());
            m.put("backlog", backlog);
            m.put("oldestWaitingSeconds", r == null ? null : Math.max(0, (clock.millis() - r.path("oldestMs").asLong()) / 1000));
            m.put("delivered", s.delivered.get());
            m.put("retried", s.retried.get());
            m.put("failed", s.failed.get());
            m.put("expired", s.expired.get());
            m.put("lastDelivered", s.lastDeliveredAt == null ? null : s.lastDeliveredAt.toString());
            m.put("lastError", s.lastError);
            m.put("lastErrorAt", s.lastErrorAt == null ? null : s.lastErrorAt.toString());
            m.put("state", !props.enabled() ? "off" : backlog == 0 ? "ok"
                    : r != null && r.path("maxAttempts").asInt() > 0 ? "retrying" : "sending");
            m.put("spec", t.target().shown());
            out.add(m);
        }
        return out;
    }
}
