package dev.sharding.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.SplitBrainSettings.Strategy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The split-brain decisions without a network: each strategy over the sides of a split, the reference views and the
 * boundary of stability, and how long a coordinator may run on the confirmations it got.
 */
class PartitionDeciderTest {

    private static final long S = 1_000_000_000L;

    private static final Member A = new Member(0, 1, "a");
    private static final Member B = new Member(0, 2, "b");
    private static final Member C = new Member(0, 3, "c");
    private static final Member D = new Member(0, 4, "d");
    private static final Member E = new Member(0, 5, "e");

    private static PartitionDecider decider(Strategy strategy) {
        SplitBrainSettings s = SplitBrainSettings.DEFAULT.withStrategy(strategy);
        if (strategy == Strategy.STATIC_QUORUM) {
            s = s.withQuorumSize(3);
        }
        return new PartitionDecider(s, 5 * S, S / 2);
    }

    /** A decider whose last stable view is the given one. */
    private static PartitionDecider stable(Strategy strategy, List<Member> view) {
        PartitionDecider d = decider(strategy);
        assertThat(d.onView(view, 0)).isTrue();
        return d;
    }

    @Test
    void keepMajorityKeepsTheSideWithMoreThanHalf() {
        List<Member> all = List.of(A, B, C, D, E);
        assertThat(stable(Strategy.KEEP_MAJORITY, all).onView(List.of(A, B, C), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.KEEP_MAJORITY, all).onView(List.of(D, E), 10 * S))
                .isFalse();
        assertThat(stable(Strategy.KEEP_MAJORITY, all).onView(List.of(C, D, E), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.KEEP_MAJORITY, all).onView(List.of(A, B), 10 * S))
                .isFalse();
    }

    @Test
    void anExactTieIsWonByTheSideOfTheOldestMember() {
        List<Member> four = List.of(A, B, C, D);
        assertThat(stable(Strategy.KEEP_MAJORITY, four).onView(List.of(A, D), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.KEEP_MAJORITY, four).onView(List.of(B, C), 10 * S))
                .isFalse();
        // two nodes: the oldest alone runs on, the other alone stops
        assertThat(stable(Strategy.KEEP_MAJORITY, List.of(A, B)).onView(List.of(A), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.KEEP_MAJORITY, List.of(A, B)).onView(List.of(B), 10 * S))
                .isFalse();
    }

    @Test
    void membersThatJoinedSinceTheStableViewDoNotCount() {
        PartitionDecider d = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C));
        // D and E join, and the view splits long before it is stable: only A, B, C count
        assertThat(d.onView(List.of(A, B, C, D, E), 10 * S)).isTrue();
        assertThat(d.onView(List.of(C, D, E), 11 * S)).isFalse();
        PartitionDecider other = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C));
        assertThat(other.onView(List.of(A, B, C, D, E), 10 * S)).isTrue();
        assertThat(other.onView(List.of(A, B), 11 * S)).isTrue();
    }

    @Test
    void aViewNearTheBoundaryOfStabilityIsAReferenceToo() {
        // D and E joined 5 s ago (about stable-after): a side must win against the new view and the old one, so
        // that two nodes that disagree on whether it is stable cannot both win
        PartitionDecider d = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C));
        d.onView(List.of(A, B, C, D, E), 10 * S);
        assertThat(d.references(15 * S)).containsExactly(List.of(A, B, C, D, E), List.of(A, B, C));
        assertThat(d.onView(List.of(C, D, E), 15 * S)).isFalse(); // 3 of 5 but 1 of 3
        PartitionDecider e = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C));
        e.onView(List.of(A, B, C, D, E), 10 * S);
        assertThat(e.onView(List.of(A, B), 15 * S)).isFalse(); // 2 of 3 but 2 of 5
        // long past the boundary the new view alone is the reference
        PartitionDecider f = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C));
        f.onView(List.of(A, B, C, D, E), 10 * S);
        assertThat(f.references(20 * S)).containsExactly(List.of(A, B, C, D, E));
        assertThat(f.onView(List.of(C, D, E), 20 * S)).isTrue();
    }

    @Test
    void aLosingSideNeverBecomesAReference() {
        PartitionDecider d = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C, D, E));
        assertThat(d.onView(List.of(D, E), 10 * S)).isFalse();
        // long after, E crashes on the losing side: D alone is still 1 of 5, not 1 of 2 with the oldest
        assertThat(d.onView(List.of(D), 100 * S)).isFalse();
        // the sides merge: it runs again
        assertThat(d.onView(List.of(A, B, C, D, E), 110 * S)).isTrue();
    }

    @Test
    void aMemberThatLeftGracefullyIsNoSplit() {
        PartitionDecider d = stable(Strategy.KEEP_MAJORITY, List.of(A, B));
        d.leaving(A);
        assertThat(d.onView(List.of(B), 10 * S)).isTrue();
    }

    @Test
    void aLeaverIsForgottenAtTheViewWithoutItSoAStableViewLeftByOneCountsTheRest() {
        PartitionDecider d = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C, D));
        d.leaving(B);
        assertThat(d.onView(List.of(A, C, D), 10 * S)).isTrue();
        // A crashes before {A, C, D} is stable: C and D are 2 of the 3 that stayed, not 2 of 4 without the oldest
        assertThat(d.onView(List.of(C, D), 10 * S + S / 10)).isTrue();
    }

    @Test
    void aGoodbyeHeardOnOneSideOnlyBeforeACutLetsNoTwoSidesRun() {
        // B says goodbye; C and D hear it, A does not yet; then the cut {A, B} | {C, D} comes before B is gone
        PartitionDecider a = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C, D));
        PartitionDecider c = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C, D));
        c.leaving(B);
        boolean aRuns = a.onView(List.of(A, B), 10 * S);
        boolean cRuns = c.onView(List.of(C, D), 10 * S);
        assertThat(aRuns && cRuns)
                .as("both sides run: A's %s, C's %s", aRuns, cRuns)
                .isFalse();
        assertThat(aRuns).as("the side of the oldest, with half").isTrue();
        // then B is gone on A's side: A alone is 1 of 3 that did not leave
        a.leaving(B);
        assertThat(a.onView(List.of(A), 11 * S)).isFalse();
    }

    @Test
    void keepOldestKeepsTheSideOfTheOldestUnlessItIsAlone() {
        List<Member> all = List.of(A, B, C, D, E);
        assertThat(stable(Strategy.KEEP_OLDEST, all).onView(List.of(A, B), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.KEEP_OLDEST, all).onView(List.of(C, D, E), 10 * S))
                .isFalse();
        // down-if-alone: the oldest cut off alone stops, and all the others run
        assertThat(stable(Strategy.KEEP_OLDEST, all).onView(List.of(A), 10 * S)).isFalse();
        assertThat(stable(Strategy.KEEP_OLDEST, all).onView(List.of(B, C, D, E), 10 * S))
                .isTrue();
        PartitionDecider noDown = new PartitionDecider(
                SplitBrainSettings.DEFAULT.withStrategy(Strategy.KEEP_OLDEST).withDownIfAlone(false), 5 * S, S / 2);
        noDown.onView(all, 0);
        assertThat(noDown.onView(List.of(A), 10 * S)).isTrue();
    }

    @Test
    void staticQuorumCountsTheMembersOfTheSide() {
        assertThat(stable(Strategy.STATIC_QUORUM, List.of(A, B, C, D, E)).onView(List.of(C, D, E), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.STATIC_QUORUM, List.of(A, B, C, D, E)).onView(List.of(A, B), 10 * S))
                .isFalse();
        // below the quorum, a cluster that lost nobody runs: it starts and grows
        PartitionDecider growing = stable(Strategy.STATIC_QUORUM, List.of(A));
        assertThat(growing.onView(List.of(A, B), 10 * S)).isTrue();
        assertThat(growing.onView(List.of(B), 20 * S)).isFalse();
    }

    @Test
    void staticQuorumDoesNotCountMembersThatJoinedASideAfterTheSplit() {
        Member joiner = new Member(0, 9, "joiner");
        PartitionDecider minority = stable(Strategy.STATIC_QUORUM, List.of(A, B, C, D, E));
        PartitionDecider majority = stable(Strategy.STATIC_QUORUM, List.of(A, B, C, D, E));
        // an autoscaler replaces the "dead" members on the side of two: it holds three members, not a quorum of five
        assertThat(minority.onView(List.of(A, B, joiner), 10 * S)).isFalse();
        assertThat(majority.onView(List.of(C, D, E), 10 * S)).isTrue();
    }

    @Test
    void staticQuorumStopsEverySideOfASplitOfMoreThanTwiceTheQuorumLessOne() {
        Member f = new Member(0, 6, "f");
        List<Member> six = List.of(A, B, C, D, E, f);
        // quorum 3 in a cluster of six: both halves hold three
        assertThat(stable(Strategy.STATIC_QUORUM, six).onView(List.of(A, B, C), 10 * S))
                .isFalse();
        assertThat(stable(Strategy.STATIC_QUORUM, six).onView(List.of(D, E, f), 10 * S))
                .isFalse();
        assertThat(stable(Strategy.STATIC_QUORUM, six).onView(List.of(A, B, C, D, E), 10 * S))
                .as("a member lost is a split too: nothing tells it from a cut")
                .isFalse();
        assertThat(decider(Strategy.STATIC_QUORUM).maxStaticQuorumMembers()).isEqualTo(5);
    }

    @Test
    void storeLeaseAndOffDecideNothingOnViews() {
        assertThat(stable(Strategy.STORE_LEASE, List.of(A, B, C)).onView(List.of(C), 10 * S))
                .isTrue();
        assertThat(stable(Strategy.OFF, List.of(A, B, C)).onView(List.of(C), 10 * S))
                .isTrue();
    }

    @Test
    void aCoordinatorRunsUntilTheLeaseAfterTheLastWinningConfirmation() {
        PartitionDecider d = stable(Strategy.KEEP_MAJORITY, List.of(A, B, C, D, E));
        long lease = 2 * S;
        // A (itself, now), B confirmed at 9 s, C at 8 s, D at 3 s: the newest winning set is {A, B, C} since 8 s
        assertThat(d.runUntil(Map.of(A, 10 * S, B, 9 * S, C, 8 * S, D, 3 * S), 10 * S, lease))
                .isEqualTo(10 * S);
        // without C, the third confirmation is D's, long ago
        assertThat(d.runUntil(Map.of(A, 10 * S, B, 9 * S, D, 3 * S), 10 * S, lease))
                .isEqualTo(5 * S);
        // two of five never win
        assertThat(d.runUntil(Map.of(A, 10 * S, B, 9 * S), 10 * S, lease)).isEqualTo(Long.MIN_VALUE);
    }
}
