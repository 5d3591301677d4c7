package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.MemberLeaseTest.COORDINATOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that took over from another takes no shard over until a winning set of members has confirmed it, and
 * then one lease more: a member still reaching the old coordinator (which the new one could not reach) may have
 * answered the old one's pings after the new one became active, and the old one's grants rest on those answers.
 * Every such answer came before the member answered the new coordinator, so one lease after the last answer the new
 * one needed, no grant of the old one can run.
 */
class ActivationFenceTest {

    private static final long LEASE = Duration.ofSeconds(2).toNanos();

    private static final Member B = new Member(0, 3, "b");

    private static final Member D = new Member(0, 4, "d");

    private static final Member E = new Member(0, 5, "e");

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    @Test
    void aNewCoordinatorFencesEveryShardUntilOneLeaseAfterAWinningSetFirstConfirmedIt() {
        long start = System.nanoTime();
        keeper.onView(List.of(COORDINATOR, host.self(), B, D, E), start);
        // the old coordinator is gone from this node's view; B, D and E may still follow it for a while
        keeper.onView(List.of(host.self(), B, D, E), start + 1_000_000);
        assertThat(keeper.confirmedActivationFence(System.nanoTime()))
                .as("nobody confirmed the new coordinator yet")
                .isEqualTo(Long.MAX_VALUE);

        long round = lastPing().round();
        keeper.onPong(B, new LeasePong(round, 1));
        assertThat(keeper.confirmedActivationFence(System.nanoTime()))
                .as("two of five is no winning set")
                .isEqualTo(Long.MAX_VALUE);

        long beforeWinning = System.nanoTime();
        keeper.onPong(D, new LeasePong(round, 1));
        long fence = keeper.confirmedActivationFence(System.nanoTime());
        assertThat(fence - beforeWinning)
                .as("one lease after the answer that made a winning set, not after the ping was sent")
                .isGreaterThanOrEqualTo(LEASE);
        assertThat(keeper.confirmedActivationFence(System.nanoTime() + LEASE))
                .as("fixed once confirmed")
                .isEqualTo(fence);
    }

    @Test
    void theFirstNodeOfANewClusterHadNoPredecessorAndWaitsForNothing() {
        keeper.onView(List.of(host.self()), System.nanoTime());
        assertThat(keeper.confirmedActivationFence(System.nanoTime())).isEqualTo(Long.MIN_VALUE);
    }

    private LeasePing lastPing() {
        for (int i = host.sent.size() - 1; i >= 0; i--) {
            if (host.sent.get(i) instanceof LeasePing p) {
                return p;
            }
        }
        throw new AssertionError("no ping sent: " + host.sent);
    }
}
