package org.nmws.service.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The NWS-style forecaster on series whose right answer is known. */
class ForecasterTest {

    @Test
    void aSteadySeriesIsForecastExactlyWithNoError() {
        Forecaster.Forecast f = Forecaster.forecast(new double[] {97.2, 97.2, 97.2, 97.2, 97.2});
        assertEquals(97.2, f.value(), 1e-12);
        assertEquals(0, f.error(), 1e-12);
        assertEquals("last", f.predictor(), "ties go to the simplest");
        assertNull(Forecaster.forecast(new double[0]));
        assertEquals(5, Forecaster.forecast(new double[] {5}).value(), 0);
    }

    @Test
    void afterTheBottleneckChangesTheForecastFollowsWithinAFewSamplesAndItsErrorCoversTheChange() {
        double[] s = new double[25];
        for (int i = 0; i < s.length; i++) {
            s[i] = i < 20 ? 100 : 50; // tbf 100 -> 50 Mbit/s at sample 20
        }
        double[] afterOne = java.util.Arrays.copyOf(s, 21);
        Forecaster.Forecast early = Forecaster.forecast(afterOne);
        Forecaster.Forecast f = Forecaster.forecast(s);
        assertEquals(50, f.value(), 2.5, "within 5 % of the new rate after 5 samples: " + f);
        // The change is in the recent errors: the expected error says the forecast is uncertain.
        assertTrue(f.error() > 0 && early.error() > 0, f + " " + early);
        assertTrue(Math.abs(early.value() - 50) <= early.error() * 10 + 1e-9 || early.value() < 100,
                "one sample after the change the forecast has moved or says how unsure it is: " + early);
    }

    @Test
    void aNoisySeriesIsForecastByAnAverageNotTheLastValue() {
        double[] s = new double[30];
        for (int i = 0; i < s.length; i++) {
            s[i] = 80 + (i % 2 == 0 ? 10 : -10); // alternating: the last value is always 20 off
        }
        Forecaster.Forecast f = Forecaster.forecast(s);
        assertTrue(!f.predictor().equals("last"), f.toString());
        assertEquals(80, f.value(), 3, f.toString());
        assertTrue(f.error() < 20, "better than last value's 20: " + f);
        assertEquals(f.error() / f.value(), f.relativeError(), 1e-12);
    }
}
