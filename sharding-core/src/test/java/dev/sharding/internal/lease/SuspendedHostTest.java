package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.MemberLeaseTest.COORDINATOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A host or virtual machine suspended and resumed: the monotonic clock the leases run on stood still, the wall clock
 * did not. A lease must not seem to last for as long as the suspension: the node stops delivering until a fresh lease
 * comes, and its shards are checked against the store before they serve again. Hand-fed clocks: nothing waits.
 */
class SuspendedHostTest {

    private static final long LEASE = Duration.ofSeconds(2).toNanos();

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    @Test
    void aWallClockThatRanAheadOfTheMonotonicOneEndsTheLeaseAndTheNextOneChecksTheShards() {
        host.servingBy(keeper::serving);
        long now = System.nanoTime();
        long wall = System.currentTimeMillis();
        keeper.onView(List.of(COORDINATOR, host.self()), now);
        grant();
        assertThat(keeper.serving()).isTrue();

        // 100 ms pass on both clocks (a collector's pause is the same): nothing changes
        keeper.tick(now, wall);
        keeper.tick(now + TimeUnit.MILLISECONDS.toNanos(100), wall + 100);
        assertThat(keeper.serving()).isTrue();

        // suspended for 30 s: the monotonic clock moved 1 ms, the wall clock 30 s
        keeper.tick(now + TimeUnit.MILLISECONDS.toNanos(101), wall + 30_101);
        assertThat(keeper.serving()).as("the lease is taken as run out").isFalse();
        assertThat(host.resumed).isZero();

        grant();
        assertThat(keeper.serving()).isTrue();
        assertThat(host.servingWhenHeld)
                .as("delivery held before the lease was published")
                .containsExactly(false);
        assertThat(host.heldWhenResumed).as("the shards are checked").containsExactly(true);
    }

    @Test
    void aGrantForARequestSentBeforeTheSuspensionIsNotTaken() {
        long now = System.nanoTime();
        long wall = System.currentTimeMillis();
        keeper.onView(List.of(COORDINATOR, host.self()), now);
        keeper.onPing(COORDINATOR, new LeasePing(1));
        LeasePong before = (LeasePong) host.sent.remove(host.sent.size() - 1);
        keeper.tick(now, wall);
        keeper.tick(now + 1_000_000, wall + 30_000);
        // the coordinator's answer to the request sent before the suspension would run from its stale send time
        keeper.onGrant(COORDINATOR, new LeaseGrant(before.request(), LEASE));
        assertThat(keeper.serving()).isFalse();
    }

    private void grant() {
        keeper.onPing(COORDINATOR, new LeasePing(1));
        LeasePong pong = (LeasePong) host.sent.remove(host.sent.size() - 1);
        keeper.onGrant(COORDINATOR, new LeaseGrant(pong.request(), LEASE));
    }
}
