package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.MemberLeaseTest.COORDINATOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An operator's probe is a member for JGroups, never for the split-brain decision. It is known by the mark in its
 * address, which reaches the nodes in sealed view messages; names come in discovery answers, which anyone on the
 * network can forge, so a real member renamed to look like a probe still counts.
 */
class ProbeMembersTest {

    private static final long S = Duration.ofSeconds(1).toNanos();

    /** The top 32 bits of a probe's address. */
    private static final long PROBE_MARK = 0x5348_5052L;

    private static final Member B = new Member(0, 3, "b");

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper = host.keeper(SplitBrainSettings.DEFAULT, 5 * S);

    @Test
    void aMemberNamedLikeAProbeStillCounts() {
        Member renamed = new Member(0, 7, "sharding-admin-probe-1234abcd");
        long t = System.nanoTime();
        keeper.onView(List.of(COORDINATOR, host.self(), renamed, B), t);
        // cut off with B from the oldest and the renamed member: 2 of 4 without the oldest loses
        keeper.onView(List.of(host.self(), B), t + 10 * S);
        assertThat(keeper.viewWins()).isFalse();
    }

    @Test
    void aProbeByItsAddressDoesNotCount() {
        Member probe = new Member(PROBE_MARK << 32, 7, "any name");
        long t = System.nanoTime();
        keeper.onView(List.of(COORDINATOR, host.self(), probe, B), t);
        // without the probe the reference is the oldest, this node and B: 2 of 3 wins
        keeper.onView(List.of(host.self(), B), t + 10 * S);
        assertThat(keeper.viewWins()).isTrue();
    }
}
