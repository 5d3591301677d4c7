package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a rebalance round may start, on a clock the test moves. */
class RebalanceGateTest {

    private static final long INTERVAL = 10_000;

    private final RebalanceGate gate = new RebalanceGate(INTERVAL, 0);

    @Test
    void aPeriodicRoundWaitsForAStableViewAndAnInterval() {
        gate.ready(0);
        assertThat(gate.periodicRoundDue(9_999, true, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(10_000, true, true, true)).isTrue();

        gate.viewChanged(10_000); // a member joined: the view must be stable for a whole interval again
        assertThat(gate.periodicRoundDue(15_000, true, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(20_000, true, true, true)).isTrue();
    }

    @Test
    void noRoundWhileNotReadyMovingOrLeaving() {
        long later = 100_000;
        assertThat(gate.periodicRoundDue(later, false, true, true))
                .as("not ready")
                .isFalse();
        assertThat(gate.periodicRoundDue(later, true, false, true))
                .as("a shard moving")
                .isFalse();
        assertThat(gate.periodicRoundDue(later, true, true, false))
                .as("a member leaving")
                .isFalse();
        assertThat(gate.periodicRoundDue(later, true, true, true)).isTrue();
    }

    @Test
    void aRoundThatMovedShardsIsFollowedAtOnceWhenItsMovesAreDone() {
        gate.roundStarted(3, 20_000);
        assertThat(gate.nextRoundAtOnce(20_001, true, false, true))
                .as("still moving")
                .isFalse();
        assertThat(gate.nextRoundAtOnce(20_500, true, true, true)).isTrue();
        assertThat(gate.periodicRoundDue(20_500, true, true, true))
                .as("not yet the interval")
                .isFalse();
    }

    @Test
    void aRoundThatMovedNothingWaitsForTheInterval() {
        gate.roundStarted(0, 20_000);
        assertThat(gate.nextRoundAtOnce(20_500, true, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(30_000, true, true, true)).isTrue();
    }

    @Test
    void churnDuringARollingRestartHoldsEvenTheNextRound() {
        gate.roundStarted(2, 20_000);
        gate.viewChanged(21_000);
        assertThat(gate.nextRoundAtOnce(25_000, true, true, true)).isFalse();
        assertThat(gate.nextRoundAtOnce(31_000, true, true, true)).isTrue();
    }
}
