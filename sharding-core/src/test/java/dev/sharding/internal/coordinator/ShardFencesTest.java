package dev.sharding.internal.coordinator;

import static dev.sharding.internal.coordinator.ShardFences.Verdict.FREE;
import static dev.sharding.internal.coordinator.ShardFences.Verdict.WAIT_FOR_CONFIRMATION;
import static dev.sharding.internal.coordinator.ShardFences.Verdict.WAIT_FOR_LEASES;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a coordinator may take over a shard that may still be served elsewhere, on a clock the test moves. */
class ShardFencesTest {

    private static final ShardKey SHARD = new ShardKey("account", 3);

    private static final ShardKey OTHER = new ShardKey("account", 4);

    private final ShardFences fences = new ShardFences();

    private long confirmedAfter = Long.MAX_VALUE;

    /** What {@link ShardFences.Confirmation#confirmedActivationFence} answers; none by default. */
    private long activationFence = Long.MIN_VALUE;

    private final ShardFences.Confirmation confirmation = new ShardFences.Confirmation() {
        @Override
        public boolean confirmedSince(long since, long now) {
            return confirmedAfter <= now && since < now;
        }

        @Override
        public long confirmedActivationFence(long now) {
            return activationFence;
        }
    };

    @Test
    void aShardOfAMemberThatLeftWaitsForItsLastLeaseThenForAConfirmation() {
        fences.memberLeft(SHARD, 5_000, 1_000); // its lease may run until 5,000

        assertThat(fences.check(SHARD, 4_999, confirmation)).isEqualTo(WAIT_FOR_LEASES);
        assertThat(fences.until()).isEqualTo(5_000);
        assertThat(fences.check(SHARD, 5_000, confirmation))
                .as("a coordinator not confirmed since the member left (it may be on the losing side)")
                .isEqualTo(WAIT_FOR_CONFIRMATION);

        confirmedAfter = 6_000;
        assertThat(fences.check(SHARD, 6_000, confirmation)).isEqualTo(FREE);
        confirmedAfter = Long.MAX_VALUE;
        assertThat(fences.check(SHARD, 6_001, confirmation))
                .as("free once, free after")
                .isEqualTo(FREE);
    }

    @Test
    void twoDeparturesKeepTheLaterFence() {
        fences.memberLeft(SHARD, 9_000, 1_000);
        fences.memberLeft(SHARD, 7_000, 2_000);

        assertThat(fences.check(SHARD, 8_000, confirmation)).isEqualTo(WAIT_FOR_LEASES);
        assertThat(fences.until()).isEqualTo(9_000);
    }

    @Test
    void aNewlyActiveCoordinatorWaitsOneLeaseForShardsNobodyReports() {
        fences.activated(3_000);

        assertThat(fences.check(OTHER, 2_000, confirmation)).isEqualTo(WAIT_FOR_LEASES);
        assertThat(fences.check(OTHER, 3_000, confirmation))
                .as("no member fence: no confirmation needed")
                .isEqualTo(FREE);
    }

    @Test
    void aCoordinatorThatTookOverWaitsForAWinningSetToConfirmItThenOneLeaseMore() {
        fences.activated(3_000);
        fences.memberLeft(SHARD, 4_000, 1_000);
        confirmedAfter = 0;
        activationFence = Long.MAX_VALUE;

        assertThat(fences.check(OTHER, 5_000, confirmation))
                .as("past the activation fence, but nobody confirmed this coordinator yet")
                .isEqualTo(WAIT_FOR_CONFIRMATION);
        assertThat(fences.check(SHARD, 5_000, confirmation)).isEqualTo(WAIT_FOR_CONFIRMATION);

        activationFence = 9_000; // confirmed at 7,000, with a lease of 2,000
        assertThat(fences.check(OTHER, 8_999, confirmation)).isEqualTo(WAIT_FOR_LEASES);
        assertThat(fences.until()).isEqualTo(9_000);
        assertThat(fences.check(SHARD, 8_999, confirmation)).isEqualTo(WAIT_FOR_LEASES);
        assertThat(fences.check(OTHER, 9_000, confirmation)).isEqualTo(FREE);
        assertThat(fences.check(SHARD, 9_000, confirmation)).isEqualTo(FREE);
    }

    @Test
    void membersOfAnotherPartOfASplitPostponeTakeovers() {
        fences.activated(1_000);
        fences.merged(8_000);
        fences.merged(4_000); // an earlier merge fence changes nothing

        assertThat(fences.check(OTHER, 7_999, confirmation)).isEqualTo(WAIT_FOR_LEASES);
        assertThat(fences.until()).isEqualTo(8_000);
        assertThat(fences.check(OTHER, 8_000, confirmation)).isEqualTo(FREE);
    }

    @Test
    void aShardReportedAgainIsNotFenced() {
        fences.memberLeft(SHARD, 5_000, 1_000);
        fences.reported(SHARD);

        assertThat(fences.check(SHARD, 2_000, confirmation)).isEqualTo(FREE);
    }

    @Test
    void activationForgetsTheFencesOfAPreviousTerm() {
        fences.memberLeft(SHARD, 50_000, 1_000);
        fences.activated(2_000);

        assertThat(fences.check(SHARD, 2_000, confirmation)).isEqualTo(FREE);
    }
}
