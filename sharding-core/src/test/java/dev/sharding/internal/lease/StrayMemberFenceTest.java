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
 * A half-broken network can leave a coordinator's view holding members whose own views lost it: a link between the
 * coordinator and one member breaks, the others follow that member as their coordinator for a while, and when the
 * link heals they install the merged view, with this coordinator first, before this coordinator's own view has the
 * member back. Their pongs then confirm this coordinator again, and it would place the shards of the member it took
 * for gone, while that member still serves them on the leases of its own term (a read sees the old copy). Each such
 * pong says the member answered another coordinator after it had confirmed this one: shards nobody reports wait one
 * lease after that answer, as after a merge.
 */
class StrayMemberFenceTest {

    private static final long LEASE = Duration.ofSeconds(2).toNanos();

    private static final Member B = new Member(0, 3, "b");

    private static final Member D = new Member(0, 4, "d");

    private static final Member E = new Member(0, 5, "e");

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    @Test
    void membersThatAnsweredAnotherCoordinatorAfterConfirmingThisOneFenceShardsNobodyReports() {
        // the first node of a cluster: no predecessor, nothing to wait for
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        long round = lastPing().round();
        keeper.onPong(B, new LeasePong(round, 1));
        keeper.onPong(D, new LeasePong(round, 1));
        assertThat(keeper.confirmedActivationFence(System.nanoTime())).isEqualTo(Long.MIN_VALUE);

        // B and D lost this coordinator and followed E until a moment ago; this node's view kept them
        long back = System.nanoTime();
        keeper.onPong(B, new LeasePong(round, 2, 0));
        keeper.onPong(D, new LeasePong(round, 2, 1_000_000L));
        long fence = keeper.confirmedActivationFence(System.nanoTime());
        assertThat(fence).as("fenced").isNotIn(Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(fence - back)
                .as("one lease after B's answer to the other coordinator")
                .isBetween(LEASE, LEASE + LEASE / 20 + (System.nanoTime() - back));
    }

    @Test
    void aMemberThatConfirmedThisCoordinatorEverSinceItsPredecessorAddsNoFence() {
        takeOver();
        long round = lastPing().round();
        // both answered the old coordinator a second and a half before they answered this one
        keeper.onPong(B, new LeasePong(round, 1, 1_500_000_000L));
        keeper.onPong(D, new LeasePong(round, 1, 1_500_000_000L));
        long fence = keeper.confirmedActivationFence(System.nanoTime());
        assertThat(fence).as("confirmed").isNotIn(Long.MIN_VALUE, Long.MAX_VALUE);

        // later pongs report that same answer, longer ago (measured a little late, as a queued pong is)
        keeper.onPong(B, new LeasePong(round, 2, 1_400_000_000L));
        keeper.onPong(D, new LeasePong(round, 2, 1_500_000_000L));
        assertThat(keeper.confirmedActivationFence(System.nanoTime()))
                .as("an answer from before this coordinator's term moves nothing")
                .isEqualTo(fence);
    }

    /** The old coordinator leaves this node's view; this node coordinates B, D and E. */
    private void takeOver() {
        keeper.onView(List.of(COORDINATOR, host.self(), B, D, E), System.nanoTime());
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
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
