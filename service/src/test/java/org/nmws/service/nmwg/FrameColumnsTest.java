package org.nmws.service.nmwg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The packed form's column sizing counts the characters Long.toString writes (issue 25). */
class FrameColumnsTest {

    @Test
    void digitsAreTheLengthOfEveryValuesDecimalForm() {
        long[] values = {0, 1, -1, 9, 10, -10, 99, 100, 999_999_999, 1_000_000_000, 2_000_000_010L, -123_456_789_012L,
            999_999_999_999_999_999L, 1_000_000_000_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};
        for (long v : values) {
            assertEquals(Long.toString(v).length(), FrameColumns.digits(v), "value " + v);
        }
    }
}
