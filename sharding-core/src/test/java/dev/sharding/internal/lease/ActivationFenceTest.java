package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.MemberLeaseTest.COORDINATOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that took over from another takes no shard over until a winning set of members has confirmed it, and
 * then one lease more: a member still reaching the old coordinator (which the new one could not reach) may have
 * answered the old one's pings after the new one became active, and the old one's grants rest on those answers.
 * Every such answer came before the member answered the new coordinator, so one lease after the last answer the new
 * one needed, no grant of the old one can run.
 *
 * <p>Sooner where members confirm the coordinator: each member says in its pong how long ago it last answered an
 * earlier coordinator, and one lease after the latest of those answers among the winning set (and the new
 * coordinator's own) no grant of a predecessor runs either. After a crash that is about when the old coordinator
 * died, not when the new one took over.
 *
 * <p>A half-broken network can leave a coordinator's view holding members whose own views lost it: a link between the
 * coordinator and one member breaks, the others follow that member as their coordinator for a while, and when the
 * link heals they install the merged view, with this coordinator first, before this coordinator's own view has the
 * member back. Their pongs then confirm this coordinator again, and it would place the shards of the member it took
 * for gone while that member still serves them on the leases of its own term. Each such pong says the member answered
 * another coordinator after it had confirmed this one: shards nobody reports wait one lease after that answer, as
 * after a merge ({@link AsymmetricHealTest} with the coordinator).
 */
class ActivationFenceTest {

    private static final long LEASE = Duration.ofSeconds(2).toNanos();

    /** The margin a lease keeper adds to its fences: a twentieth of the lease, at least 50 ms. */
    private static final long MARGIN = LEASE / 20;

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
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        assertThat(keeper.confirmedActivationFence(System.nanoTime()))
                .as("nobody confirmed the new coordinator yet")
                .isEqualTo(Long.MAX_VALUE);

        long round = host.lastPing().round();
        keeper.onPong(B, new LeasePong(round, 1));
        assertThat(keeper.confirmedActivationFence(System.nanoTime()))
                .as("two of five is no winning set")
                .isEqualTo(Long.MAX_VALUE);

        long beforeWinning = System.nanoTime();
        keeper.onPong(D, new LeasePong(round, 1));
        long fence = keeper.confirmedActivationFence(System.nanoTime());
        assertThat(fence).as("confirmed").isNotIn(Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(fence - beforeWinning)
                .as("one lease after the answer that made a winning set, not after the ping was sent")
                .isGreaterThanOrEqualTo(LEASE);
        assertThat(keeper.confirmedActivationFence(System.nanoTime() + LEASE))
                .as("fixed once confirmed")
                .isEqualTo(fence);
    }

    @Test
    void theLastAnswerTheWinningSetGaveAPredecessorBoundsItsLeasesSoonerThanTheConfirmation() {
        takeOver();
        long round = host.lastPing().round();
        keeper.onPong(B, new LeasePong(round, 1, 1_500_000_000L));
        long before = System.nanoTime();
        keeper.onPong(D, new LeasePong(round, 1, 1_000_000_000L));
        long after = System.nanoTime();
        long fence = keeper.confirmedActivationFence(System.nanoTime());
        assertThat(fence).as("confirmed").isNotIn(Long.MIN_VALUE, Long.MAX_VALUE);
        // D answered the old coordinator 1 s before its pong arrived, B 1.5 s before its own: D's answer is the latest
        assertThat(fence - (before - 1_000_000_000L))
                .as("one lease after the latest answer to the predecessor")
                .isGreaterThanOrEqualTo(LEASE);
        assertThat(fence - (after - 1_000_000_000L))
                .as("not one lease after the confirmation, but after the answer")
                .isLessThanOrEqualTo(LEASE + MARGIN);

        keeper.onPong(E, new LeasePong(round, 1, 0));
        assertThat(keeper.confirmedActivationFence(System.nanoTime()))
                .as("fixed once a winning set confirmed: a later answer outside it changes nothing")
                .isEqualTo(fence);
    }

    @Test
    void itsOwnLastAnswerToThePredecessorCounts() {
        keeper.onView(List.of(COORDINATOR, host.self(), B, D, E), System.nanoTime());
        long answered = System.nanoTime();
        keeper.onPing(COORDINATOR, new LeasePing(1));
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        long round = host.lastPing().round();
        pongsOfBAndD(new LeasePong(round, 1, 3_000_000_000L));
        assertThat(keeper.confirmedActivationFence(System.nanoTime()) - answered)
                .as("the members answered long ago, this node itself just now")
                .isGreaterThanOrEqualTo(LEASE);
    }

    @Test
    void neverBeforeTheEndOfALeaseItGrantedInAnEarlierTermOfItsOwn() {
        // first term: this node coordinates and grants B and D their leases
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        long round = host.lastPing().round();
        long granted = System.nanoTime();
        pongsOfBAndD(new LeasePong(round, 1));
        assertThat(host.sent).anyMatch(m -> m instanceof LeaseGrant);
        // another coordinates for a moment, then this node again; the members report answers given long ago, since
        // they never followed the other coordinator
        keeper.onView(List.of(COORDINATOR, host.self(), B, D, E), System.nanoTime());
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        round = host.lastPing().round();
        pongsOfBAndD(new LeasePong(round, 2, 5_000_000_000L));
        assertThat(keeper.confirmedActivationFence(System.nanoTime()) - granted)
                .as("its own grants of the first term last one lease from then")
                .isGreaterThanOrEqualTo(LEASE);
    }

    @Test
    void membersThatAnsweredBeforeAWinningSetConfirmedAreGrantedTheMomentOneDoes() {
        takeOver();
        long round = host.lastPing().round();
        keeper.onPong(B, new LeasePong(round, 11));
        assertThat(host.sent).anyMatch(m -> m instanceof LeaseRefused r && r.request() == 11);
        assertThat(host.sent).noneMatch(m -> m instanceof LeaseGrant);

        keeper.onPong(D, new LeasePong(round, 12));
        assertThat(host.sent)
                .as("D's answer made a winning set: D is granted, and so is B, without waiting for the next round")
                .anyMatch(m -> m instanceof LeaseGrant g && g.request() == 12)
                .anyMatch(m -> m instanceof LeaseGrant g && g.request() == 11);
        long grants = host.sent.stream().filter(m -> m instanceof LeaseGrant).count();
        keeper.onPong(E, new LeasePong(round, 13));
        assertThat(host.sent.stream().filter(m -> m instanceof LeaseGrant).count())
                .as("B is not granted twice")
                .isEqualTo(grants + 1);
    }

    @Test
    void withMembersConfirmingNothingWaitsOnActivationItself() {
        takeOver();
        long now = System.nanoTime();
        assertThat(keeper.activationFence(now)).isEqualTo(now);
    }

    @Test
    void aMemberSaysHowLongAgoItAnsweredItsPreviousCoordinator() {
        keeper.onView(List.of(COORDINATOR, host.self(), B), System.nanoTime());
        keeper.onPing(COORDINATOR, new LeasePing(1));
        assertThat(lastPong().earlierAnswerAgoNanos())
                .as("it never answered another")
                .isEqualTo(LeasePong.NONE);
        long answered = System.nanoTime();
        keeper.onPing(COORDINATOR, new LeasePing(2));
        assertThat(lastPong().earlierAnswerAgoNanos()).isEqualTo(LeasePong.NONE);

        keeper.onView(List.of(B, host.self()), System.nanoTime());
        keeper.onPing(B, new LeasePing(1));
        long first = lastPong().earlierAnswerAgoNanos();
        assertThat(first).isBetween(0L, System.nanoTime() - answered);
        keeper.onPing(B, new LeasePing(2));
        assertThat(lastPong().earlierAnswerAgoNanos())
                .as("still the answer to the previous coordinator, now longer ago")
                .isGreaterThanOrEqualTo(first);
    }

    @Test
    void aFormerCoordinatorReportsTheEndOfItsOwnTermAsItsLastAnswer() {
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        long round = host.lastPing().round();
        pongsOfBAndD(new LeasePong(round, 1));
        // a merge makes B the coordinator and this node one of its members: it confirmed itself until now
        long stopped = System.nanoTime();
        keeper.onView(List.of(B, host.self(), D, E), System.nanoTime());
        keeper.onPing(B, new LeasePing(1));
        assertThat(lastPong().earlierAnswerAgoNanos())
                .as("its own term, not an answer older than it")
                .isBetween(0L, System.nanoTime() - stopped);
    }

    @Test
    void membersThatAnsweredAnotherCoordinatorAfterConfirmingThisOneFenceShardsNobodyReports() {
        // the first node of a cluster: no predecessor, nothing to wait for
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
        long round = host.lastPing().round();
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
        long round = host.lastPing().round();
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

    /** B and D answer with the same pong: with this node, a winning set of five. */
    private void pongsOfBAndD(LeasePong pong) {
        keeper.onPong(B, pong);
        keeper.onPong(D, pong);
    }

    /** The old coordinator leaves this node's view; this node coordinates B, D and E. */
    private void takeOver() {
        keeper.onView(List.of(COORDINATOR, host.self(), B, D, E), System.nanoTime());
        // the ping this view sends is stamped with the time given: after the node became the coordinator
        keeper.onView(List.of(host.self(), B, D, E), System.nanoTime());
    }

    private LeasePong lastPong() {
        for (int i = host.sent.size() - 1; i >= 0; i--) {
            if (host.sent.get(i) instanceof LeasePong p) {
                return p;
            }
        }
        throw new AssertionError("no pong sent: " + host.sent);
    }

    @Test
    void theFirstNodeOfANewClusterHadNoPredecessorAndWaitsForNothing() {
        keeper.onView(List.of(host.self()), System.nanoTime());
        assertThat(keeper.confirmedActivationFence(System.nanoTime())).isEqualTo(Long.MIN_VALUE);
    }
}
