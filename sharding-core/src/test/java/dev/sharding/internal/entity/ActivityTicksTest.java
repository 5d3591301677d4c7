package dev.sharding.internal.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An entity's last activity, kept in 32 bits and restored against the clock now. */
class ActivityTicksTest {

    private static final long NOW = 1_795_000_000_000L; // a wall clock in 2026

    @Test
    void aRecentTimeComesBackOnTheTickAtOrAfterIt() {
        for (long ago : new long[] {0, 1, 15, 16, 17, 999, Duration.ofHours(5).toMillis()}) {
            long at = NOW - ago;
            long restored = ActivityTicks.millis(ActivityTicks.of(at), NOW);
            assertThat(restored).as("%d ms ago", ago).isBetween(at, at + ActivityTicks.TICK_MILLIS - 1);
            assertThat(restored % ActivityTicks.TICK_MILLIS).isZero();
        }
    }

    @Test
    void anEntityStampedAfterTheClockWasReadIsNotTakenForOld() {
        long later = NOW + 500;
        assertThat(ActivityTicks.millis(ActivityTicks.of(later), NOW))
                .isBetween(later, later + ActivityTicks.TICK_MILLIS - 1);
    }

    @Test
    void idleForMonthsAcrossTheWrapOfTheLowBits() {
        long at = NOW - Duration.ofDays(300).toMillis();
        // somewhere in those 300 days the low 32 bits of the tick wrapped (2^32 ticks of 16 ms is 2.2 years; start
        // the clock just before a wrap to be sure)
        long wrap = (1L << 32) * ActivityTicks.TICK_MILLIS;
        long before = wrap * 400 - Duration.ofDays(1).toMillis();
        long now = before + Duration.ofDays(300).toMillis();
        assertThat(ActivityTicks.millis(ActivityTicks.of(before), now)).isEqualTo(before);
        assertThat(ActivityTicks.millis(ActivityTicks.of(at), NOW)).isEqualTo(at);
    }

    @Test
    void smallClocksOfTests() {
        assertThat(ActivityTicks.millis(ActivityTicks.of(0), 0)).isZero();
        assertThat(ActivityTicks.millis(ActivityTicks.of(5), 100)).isEqualTo(16);
        assertThat(ActivityTicks.millis(ActivityTicks.of(-5), 100)).isEqualTo(0);
    }
}
