package org.nmws.service.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Admission rules on a clock the test moves: no sleeps, no timing. */
class TestAdmissionUnitTest {
    private static final List<String> ANY = List.of("0.0.0.0/0", "::/0");
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    @Test
    void onlyClientsInsideTheConfiguredBlocksMayStartTests() throws Exception {
        TestAdmission a = new TestAdmission(List.of("10.0.0.0/8", " 2001:db8::/32", "192.0.2.7"), 0, clock::get);
        a.admit(a.unauthenticated("10.200.3.4", null));
        a.admit(a.unauthenticated("2001:db8:0:0:0:0:0:1", null));
        a.admit(a.unauthenticated("192.0.2.7", null));
        a.admit(a.unauthenticated("::ffff:10.0.0.1", null)); // IPv4-mapped: the IPv4 client behind a dual-stack socket
        a.admit(a.unauthenticated(null, null)); // a caller inside the service
        for (String outside : List.of("11.0.0.1", "192.0.2.8", "2001:db9::1", "::1")) {
            MeasurementException e = assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated(outside, null)), outside);
            assertEquals(MeasurementException.Kind.DENIED, e.kind());
        }
        // Names (even ones shaped like addresses) are refused, never looked up in DNS.
        for (String name : List.of("face", "300.1.1.1", "10.0.0.01.example", "zz::1", "g:1", "10.0.0.1 ")) {
            assertFalse(a.allows(name), name);
            assertEquals(null, TestAdmission.literal(name), name);
        }
        assertTrue(a.allows("10.0.0.1"));
    }

    @Test
    void anEmptyListAdmitsNoAnonymousClientButTheServiceItself() throws Exception {
        TestAdmission a = new TestAdmission(List.of(), 0, clock::get);
        assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("203.0.113.9", null)));
        assertFalse(a.allows("::1"));
        a.admit(a.unauthenticated(null, null));
    }

    @Test
    void aBadBlockIsRefusedAtStartUp() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TestAdmission(List.of("10.0.0.0/33"), 0, clock::get));
        assertTrue(e.getMessage().contains("10.0.0.0/33"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TestAdmission(List.of(), -1, clock::get));
        assertThrows(IllegalArgumentException.class, () -> new TestAdmission(List.of("localhost/8"), 0, clock::get),
                "a host name in the configuration would be looked up in DNS");
        assertThrows(IllegalArgumentException.class, () -> new TestAdmission(List.of("probe.example.org"), 0, clock::get));
    }

    @Test
    void eachClientMayStartItsPerMinuteAtOnceAndThenOneEveryShareOfAMinute() throws Exception {
        TestAdmission a = new TestAdmission(ANY, 3, clock::get);
        for (int i = 0; i < 3; i++) {
            a.admit(a.unauthenticated("10.0.0.1", null));
        }
        MeasurementException e = assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("10.0.0.1", null)));
        assertEquals(MeasurementException.Kind.RATE_LIMITED, e.kind());
        assertTrue(e.getMessage().contains("try again in 20.0 s"), e.getMessage());
        a.admit(a.unauthenticated("10.0.0.2", null)); // another client has its own bucket
        clock.addAndGet(19_900_000_000L);
        assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("10.0.0.1", null)), "not yet a whole test's share of the minute");
        clock.addAndGet(100_000_000L);
        a.admit(a.unauthenticated("10.0.0.1", null));
        clock.addAndGet(3_600_000_000_000L); // an hour idle refills to the limit, not beyond
        for (int i = 0; i < 3; i++) {
            a.admit(a.unauthenticated("10.0.0.1", null));
        }
        assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("10.0.0.1", null)));
    }

    @Test
    void anIpv6ClientDrawsFromTheBucketOfItsSlash64() throws Exception {
        TestAdmission a = new TestAdmission(ANY, 2, clock::get);
        a.admit(a.unauthenticated("2001:db8:0:1::1", null));
        a.admit(a.unauthenticated("2001:db8:0:1::ffff", null)); // same /64: the host changed its address
        MeasurementException e = assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("2001:db8:0:1:abcd::7", null)));
        assertEquals(MeasurementException.Kind.RATE_LIMITED, e.kind());
        a.admit(a.unauthenticated("2001:db8:0:2::1", null)); // another /64, another client
    }

    @Test
    void aRefundGivesBackOneTestAndNeverMoreThanTheLimit() throws Exception {
        TestAdmission a = new TestAdmission(ANY, 1, clock::get);
        a.admit(a.unauthenticated("10.0.0.1", null));
        assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("10.0.0.1", null)));
        a.refund("10.0.0.1"); // the test did not start after all
        a.admit(a.unauthenticated("10.0.0.1", null));
        a.refund("10.0.0.1");
        a.refund("10.0.0.1"); // a second refund cannot lift the bucket above its limit
        a.admit(a.unauthenticated("10.0.0.1", null));
        assertThrows(MeasurementException.class, () -> a.admit(a.unauthenticated("10.0.0.1", null)));
    }
}
