package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a rebalance round may start, on a clock the test moves. */
class RebalanceGateTest {

    private static final long INTERVAL = 10_000;

    private static final long STABLE_AFTER = 2_000;

    private final RebalanceGate gate = new RebalanceGate(INTERVAL, STABLE_AFTER, 0);

    @Test
    void withoutAMembershipChangeARoundWaitsForTheInterval() {
        gate.ready(0);
        assertThat(gate.periodicRoundDue(9_999, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(10_000, true, true)).isTrue();
        gate.roundStarted(0, 10_000);
        assertThat(gate.periodicRoundDue(15_000, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(20_000, true, true)).isTrue();
    }

    @Test
    void aJoinIsFollowedByARoundOnceTheMembershipIsStableNotAfterTheInterval() {
        gate.ready(0);
        gate.roundStarted(0, 10_000);
        gate.viewChanged(11_000); // a member joined
        assertThat(gate.stableAt()).isEqualTo(13_000);
        assertThat(gate.periodicRoundDue(12_999, true, true))
                .as("not yet stable")
                .isFalse();
        assertThat(gate.periodicRoundDue(13_000, true, true))
                .as("stable: the round the join is owed, before the interval")
                .isTrue();
        gate.roundStarted(0, 13_000);
        assertThat(gate.periodicRoundDue(14_000, true, true))
                .as("owed once: the next one waits for the interval")
                .isFalse();
        assertThat(gate.periodicRoundDue(23_000, true, true)).isTrue();
    }

    @Test
    void joinsWithinTheWindowMoveShardsOnceAfterTheLast() {
        gate.ready(0);
        gate.viewChanged(20_000);
        gate.viewChanged(21_000);
        gate.viewChanged(21_900); // three nodes started together
        assertThat(gate.periodicRoundDue(22_000, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(23_000, true, true)).isFalse();
        assertThat(gate.stableAt()).isEqualTo(23_900);
        assertThat(gate.periodicRoundDue(23_900, true, true)).isTrue();
    }

    @Test
    void noRoundWhileMovingOrLeaving() {
        long later = 100_000;
        assertThat(gate.periodicRoundDue(later, false, true))
                .as("a shard moving")
                .isFalse();
        assertThat(gate.periodicRoundDue(later, true, false))
                .as("a member leaving")
                .isFalse();
        assertThat(gate.periodicRoundDue(later, true, true)).isTrue();
    }

    @Test
    void aRoundThatMovedShardsIsFollowedAtOnceWhenItsMovesAreDone() {
        gate.roundStarted(3, 20_000);
        assertThat(gate.nextRoundAtOnce(20_001, false, true)).as("still moving").isFalse();
        assertThat(gate.nextRoundAtOnce(20_500, true, true)).isTrue();
        assertThat(gate.periodicRoundDue(20_500, true, true))
                .as("not yet the interval")
                .isFalse();
    }

    @Test
    void aRoundThatMovedNothingWaitsForTheInterval() {
        gate.roundStarted(0, 20_000);
        assertThat(gate.nextRoundAtOnce(20_500, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(30_000, true, true)).isTrue();
    }

    @Test
    void churnDuringARollingRestartHoldsEvenTheNextRound() {
        gate.roundStarted(2, 20_000);
        gate.viewChanged(21_000);
        assertThat(gate.nextRoundAtOnce(22_000, true, true)).isFalse();
        assertThat(gate.periodicRoundDue(22_000, true, true)).isFalse();
        assertThat(gate.nextRoundAtOnce(23_000, true, true)).isTrue();
    }
}
