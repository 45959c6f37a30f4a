package org.nmws.service.observation;

import java.math.BigDecimal;
import java.math.MathContext;

/** How measured values are rounded for every answer, whatever its dialect. */
public final class Numbers {
    private Numbers() {
    }

    /**
     * Nine significant digits for measured values (what the clocks can tell, without binary
     * noise such as 3.8999999999999997E-7); whole counts stay exact.
     */
    public static double significant(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v) || v == 0 || v == Math.rint(v) && Math.abs(v) < 1e15) {
            return v;
        }
        return new BigDecimal(v).round(new MathContext(9)).doubleValue();
    }
}
