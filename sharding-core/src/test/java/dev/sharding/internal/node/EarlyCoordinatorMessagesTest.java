package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.region.LocalRegions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A new coordinator's first queries that come before its view are handled once the view is installed. */
class EarlyCoordinatorMessagesTest {

    private static final Member OLD = new Member(0, 1, "old");

    private static final Member NEXT = new Member(0, 2, "next");

    private static final Member SELF = new Member(0, 3, "self");

    private static final Member STRANGER = new Member(0, 4, "stranger");

    private final Membership membership =
            new Membership(new LocalRegions(new MemberProfile("", List.of())), (to, msg, outOfBand) -> {});

    private final EarlyCoordinatorMessages early = new EarlyCoordinatorMessages(membership);

    private final List<Map.Entry<Member, ProtocolMessage>> handled = new ArrayList<>();

    EarlyCoordinatorMessagesTest() {
        membership.joined(SELF);
        install(List.of(OLD, NEXT, SELF));
    }

    private void install(List<Member> view) {
        membership.publish(membership.changeTo(view));
        early.viewInstalled(membership.coordinator(), System.nanoTime(), (from, m) -> handled.add(Map.entry(from, m)));
    }

    @Test
    void theNextCoordinatorsPingAndShardQueryAreHandledOnceItsViewIsInstalled() {
        long now = System.nanoTime();
        assertThat(early.hold(NEXT, new LeasePing(1), now)).isTrue();
        assertThat(early.hold(NEXT, new GetShardStates(), now)).isTrue();
        assertThat(handled).isEmpty();

        install(List.of(NEXT, SELF)); // the old coordinator is gone

        assertThat(handled).containsExactly(Map.entry(NEXT, new LeasePing(1)), Map.entry(NEXT, new GetShardStates()));
        assertThat(early.size()).isZero();
    }

    @Test
    void commandsTheCurrentCoordinatorAndNonMembersAreNotHeld() {
        long now = System.nanoTime();
        assertThat(early.hold(NEXT, new HostShard("t", 1, 1, 0, List.of()), now))
                .as("a command is sent again by the coordinator; never held")
                .isFalse();
        assertThat(early.hold(OLD, new LeasePing(1), now))
                .as("from the current coordinator: handled as usual")
                .isFalse();
        assertThat(early.hold(STRANGER, new LeasePing(1), now))
                .as("not a member: cannot be the next coordinator")
                .isFalse();
    }

    @Test
    void whatWasHeldFromAMemberThatDidNotBecomeCoordinatorIsDropped() {
        assertThat(early.hold(NEXT, new LeasePing(1), System.nanoTime())).isTrue();

        install(List.of(OLD, SELF)); // NEXT left instead; OLD coordinates on

        assertThat(handled).isEmpty();
        assertThat(early.size()).isZero();
    }

    @Test
    void aMessageHeldTooLongIsDropped() {
        assertThat(early.hold(NEXT, new LeasePing(1), System.nanoTime() - EarlyCoordinatorMessages.MAX_AGE_NANOS))
                .isTrue();

        install(List.of(NEXT, SELF));

        assertThat(handled).isEmpty();
    }

    @Test
    void atMostMaxAreHeldTheOldestGoingFirst() {
        long now = System.nanoTime();
        for (int i = 0; i < EarlyCoordinatorMessages.MAX + 10; i++) {
            early.hold(NEXT, new LeasePing(i), now);
        }
        assertThat(early.size()).isEqualTo(EarlyCoordinatorMessages.MAX);

        install(List.of(NEXT, SELF));

        assertThat(handled.get(0).getValue()).isEqualTo(new LeasePing(10));
    }
}
