package org.nmws.service.measure;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A path shared by light tests: an exclusive test waiting for it is served before new light ones. */
class PathLockFairnessTest {

    @Test
    void aWaitingExclusiveTestIsNotPassedOverByNewSharedOnes() throws Exception {
        Semaphore path = MeasurementService.pathLock(2);
        assertTrue(MeasurementService.take(path, 1, 0), "a shared test runs");
        // a scheduled exclusive test waits within its grace for both permits
        CompletableFuture<Boolean> exclusive = CompletableFuture.supplyAsync(() -> {
            try {
                return MeasurementService.take(path, 2, 10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!path.hasQueuedThreads() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(path.hasQueuedThreads(), "the exclusive test waits");
        // one permit is free, but the exclusive test asked first: a new shared test is told busy
        assertFalse(MeasurementService.take(path, 1, 0), "a new shared test passed the waiting exclusive one");
        path.release(1); // the running shared test ends
        assertTrue(exclusive.get(10, TimeUnit.SECONDS), "the exclusive test runs once the path is free");
        assertFalse(MeasurementService.take(path, 1, 0), "and holds the path to itself");
    }
}
