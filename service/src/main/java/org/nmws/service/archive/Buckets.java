package org.nmws.service.archive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Collects values into epoch-aligned time buckets and consolidates each one. Values are kept
 * (not just running sums) because the median needs them all; a million raw frames cost 8 MB.
 */
final class Buckets {
    private final long widthNanos;
    private final Map<Long, Values> byStart = new TreeMap<>();
    private Values last;
    private long lastStart = Long.MIN_VALUE;

    Buckets(Duration resolution) {
        this.widthNanos = resolution.toNanos();
    }

    void add(long epochNanos, double value) {
        long start = Math.floorDiv(epochNanos, widthNanos) * widthNanos;
        // Values mostly arrive in time order: skip the map lookup while the bucket is the same.
        if (start != lastStart) {
            last = byStart.computeIfAbsent(start, s -> new Values());
            lastStart = start;
        }
        last.add(value);
    }

    List<TimeBucket> consolidate() {
        List<TimeBucket> out = new ArrayList<>(byStart.size());
        for (Map.Entry<Long, Values> e : byStart.entrySet()) {
            Values v = e.getValue();
            double sum = 0;
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < v.n; i++) {
                double x = v.a[i];
                sum += x;
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
            out.add(new TimeBucket(JdbcArchive.instant(e.getKey()), v.n, sum / v.n, min, max, median(v.a, v.n)));
        }
        return out;
    }

    /** Median of a[0..n) (reorders a): quickselect, O(n), where a full sort costs O(n log n). */
    static double median(double[] a, int n) {
        int mid = n / 2;
        double upper = select(a, 0, n - 1, mid);
        if (n % 2 == 1) {
            return upper;
        }
        // After select, a[0..mid) holds the mid smallest values: the lower middle is their max.
        double lower = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < mid; i++) {
            lower = Math.max(lower, a[i]);
        }
        return (lower + upper) / 2;
    }

    private static double select(double[] a, int lo, int hi, int k) {
        while (lo < hi) {
            // Median of three as pivot: raw series often arrive sorted or nearly so.
            int m = (lo + hi) >>> 1;
            if (a[m] < a[lo]) swap(a, lo, m);
            if (a[hi] < a[lo]) swap(a, lo, hi);
            if (a[hi] < a[m]) swap(a, m, hi);
            double pivot = a[m];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (a[i] < pivot) i++;
                while (a[j] > pivot) j--;
                if (i <= j) {
                    swap(a, i, j);
                    i++;
                    j--;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                return a[k];
            }
        }
        return a[k];
    }

    private static void swap(double[] a, int i, int j) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    private static final class Values {
        double[] a = new double[16];
        int n;

        void add(double x) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = x;
        }
    }
}
