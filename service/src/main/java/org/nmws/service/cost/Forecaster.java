package org.nmws.service.cost;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Forecasts the next value of a measurement series as the Network Weather Service did (Wolski,
 * 1998): a family of simple predictors runs over the whole series, each forecasting every value
 * from the ones before it; the predictor with the lowest recent error is chosen for this series,
 * and that error is reported as the forecast's expected error. Written here because the
 * method is the point (and small): no library keeps NWS's predictor family.
 */
public final class Forecaster {
    /** Forecasts whose errors choose the predictor: recent enough to follow a change of regime. */
    static final int ERROR_WINDOW = 10;
    private static final int[] WINDOWS = {5, 10, 20};
    private static final double[] GAINS = {0.05, 0.1, 0.2, 0.3, 0.5, 0.75};

    private Forecaster() {
    }

    /**
     * The forecast of the next value.
     *
     * @param value the forecast
     * @param predictor the predictor chosen (last, running-mean, mean-N, median-N, smooth-G)
     * @param error the chosen predictor's mean absolute error over its recent forecasts, in the
     *        series' unit (0 when fewer than two values: no forecast was checked yet)
     * @param samples values the forecast rests on
     */
    public record Forecast(double value, String predictor, double error, int samples) {
        /** The expected error as a share of the forecast. */
        public double relativeError() {
            return value == 0 ? 0 : error / Math.abs(value);
        }
    }

    /** One predictor: its forecast of the next value, given every value so far. */
    private interface Predictor {
        String name();

        double predict(double[] x, int n); // a forecast of x[n] from x[0..n-1], n >= 1
    }

    private static List<Predictor> family() {
        List<Predictor> p = new ArrayList<>();
        p.add(named("last", (x, n) -> x[n - 1]));
        p.add(named("running-mean", (x, n) -> mean(x, 0, n)));
        for (int w : WINDOWS) {
            p.add(named("mean-" + w, (x, n) -> mean(x, Math.max(0, n - w), n)));
            p.add(named("median-" + w, (x, n) -> median(x, Math.max(0, n - w), n)));
        }
        for (double g : GAINS) {
            p.add(named("smooth-" + g, (x, n) -> {
                double s = x[0];
                for (int i = 1; i < n; i++) {
                    s += g * (x[i] - s);
                }
                return s;
            }));
        }
        return p;
    }

    private static Predictor named(String name, java.util.function.BiFunction<double[], Integer, Double> f) {
        return new Predictor() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public double predict(double[] x, int n) {
                return f.apply(x, n);
            }
        };
    }

    /**
     * The forecast of the value after the series (oldest first), or null for an empty one.
     * Ties go to the simpler predictor (the family's order).
     */
    public static Forecast forecast(double[] series) {
        int n = series.length;
        if (n == 0) {
            return null;
        }
        if (n == 1) {
            return new Forecast(series[0], "last", 0, 1);
        }
        Predictor best = null;
        double bestError = Double.POSITIVE_INFINITY;
        for (Predictor p : family()) {
            double sum = 0;
            int count = 0;
            for (int t = Math.max(1, n - ERROR_WINDOW); t < n; t++) {
                sum += Math.abs(p.predict(series, t) - series[t]);
                count++;
            }
            double error = sum / count;
            if (error < bestError - 1e-12) {
                best = p;
                bestError = error;
            }
        }
        return new Forecast(best.predict(series, n), best.name(), bestError, n);
    }

    private static double mean(double[] x, int from, int to) {
        double s = 0;
        for (int i = from; i < to; i++) {
            s += x[i];
        }
        return s / (to - from);
    }

    private static double median(double[] x, int from, int to) {
        double[] w = Arrays.copyOfRange(x, from, to);
        Arrays.sort(w);
        int m = w.length / 2;
        return w.length % 2 == 1 ? w[m] : (w[m - 1] + w[m]) / 2;
    }
}
