package org.nmws.service.measure;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The host-wide interlock of the test classes: an exclusive test holds the write side, a
 * normal test the read side, a background test neither. On-demand and scheduled tests take
 * it alike; on-demand ones do not wait (they are told when to retry), scheduled ones wait up
 * to their slot's grace. Fair, so a waiting exclusive test is not starved by a stream of
 * normal ones.
 */
public final class Interlock {
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

    /** What a test holds while it runs; closing it lets the others in. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private static final Held NOTHING = () -> { };

    /** The interlock for a test of this class, waiting at most waitMillis; null if not got. */
    public Held acquire(TestClass c, long waitMillis) throws InterruptedException {
        if (c == TestClass.BACKGROUND) {
            return NOTHING;
        }
        Lock l = c == TestClass.EXCLUSIVE ? lock.writeLock() : lock.readLock();
        // tryLock() without a timeout barges past waiting threads; with a zero timeout it is fair.
        if (!l.tryLock(Math.max(0, waitMillis), TimeUnit.MILLISECONDS)) {
            return null;
        }
        return l::unlock;
    }

    /** Whether an exclusive test runs now. */
    public boolean exclusiveRunning() {
        return lock.isWriteLocked();
    }
}
