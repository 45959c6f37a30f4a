package org.nmws.service.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/** What a scheduler's tick plans, for benchmarks outside this package (PsConfigScaleBench). */
public final class SlotPlanning {
    private SlotPlanning() {
    }

    /** Plans every schedule of the point to the horizon, as a tick at now does; the slots the store holds after. */
    public static int planAll(ScheduleStore store, String point, Instant now, Duration horizon) {
        Scheduler s = new Scheduler(store, null, point, horizon, 1, Clock.fixed(now, ZoneOffset.UTC), false);
        for (Schedule schedule : store.of(point)) {
            s.plan(schedule, now);
        }
        return store.pending(point).size();
    }
}
