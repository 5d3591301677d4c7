package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.MemberLeaseTest.COORDINATOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeaseRefused;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Split-brain strategy off, through the lease keeper: the node serves from the start and never stops, every side
 * wins, nothing is fenced and lease messages are ignored. Hand-fed clocks: nothing waits.
 */
class NoLeasesTest {

    private static final long S = Duration.ofSeconds(1).toNanos();

    private static final Member B = new Member(0, 3, "b");

    private static final Member D = new Member(0, 4, "d");

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT.withStrategy(SplitBrainSettings.Strategy.OFF), 5 * S);

    @Test
    void theNodeServesFromTheStartAndThroughALosingViewALongTickAndAClockJump() {
        assertThat(keeper.serving()).isTrue();
        assertThat(keeper.hadLease()).isTrue();
        long t = System.nanoTime();
        long wall = System.currentTimeMillis();
        keeper.onView(List.of(COORDINATOR, host.self(), B, D), t);
        // alone with B, without the oldest, after the view was stable: keep-majority would lose
        keeper.onView(List.of(host.self(), B), t + 10 * S);
        assertThat(keeper.viewWins()).isTrue();
        assertThat(keeper.viewStable(t + 10 * S)).isTrue();
        keeper.tick(t + 11 * S, wall + 11_000);
        keeper.tick(t + 12 * S, wall + 60_000); // the wall clock jumped ahead: leases would be taken as run out
        keeper.tick(t + 600 * S, wall + 650_000);
        assertThat(keeper.serving()).isTrue();
        assertThat(keeper.partitioned()).isNull();
    }

    @Test
    void nothingIsFencedAndEveryMemberCountsAsLeased() {
        long t = System.nanoTime();
        keeper.onView(List.of(COORDINATOR, host.self(), B), t);
        keeper.onView(List.of(host.self(), B), t + S); // this node took over from the coordinator
        long now = t + 2 * S;
        assertThat(keeper.fenceFor(COORDINATOR, now)).isEqualTo(now);
        assertThat(keeper.confirmedSince(now, now)).isTrue();
        assertThat(keeper.activationFence(now)).isEqualTo(now);
        assertThat(keeper.confirmedActivationFence(now)).isEqualTo(Long.MIN_VALUE);
        assertThat(keeper.mergeFence(now)).isEqualTo(now);
        assertThat(keeper.leased(B, now)).isTrue();
        assertThat(keeper.inCharge(System.nanoTime()))
                .as("as far as the store's lease, still held against a second cluster, lets it")
                .isTrue();
    }

    @Test
    void leaseMessagesAreIgnored() {
        keeper.onView(List.of(COORDINATOR, host.self()), System.nanoTime());
        keeper.onPing(COORDINATOR, new LeasePing(1));
        assertThat(host.sent).as("no request for a lease").isEmpty();
        keeper.onGrant(COORDINATOR, new LeaseGrant(1, 1));
        keeper.onRefused(COORDINATOR, new LeaseRefused(1, LeaseRefused.NOT_A_MEMBER + ": gone"));
        assertThat(keeper.serving()).isTrue();
        assertThat(keeper.partitioned()).isNull();
    }

    @Test
    void aCoordinatorPingsItsViewOnceAViewAsBeforeButNoOneOnRegistration() {
        keeper.onView(List.of(host.self(), B, D), System.nanoTime());
        assertThat(host.sent).containsExactly(new LeasePing(1), new LeasePing(1));
        keeper.pingNow(B);
        assertThat(host.sent).hasSize(2);
    }
}
