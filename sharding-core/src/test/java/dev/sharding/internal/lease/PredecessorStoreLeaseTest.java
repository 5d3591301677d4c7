package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.MemberLeaseTest.COORDINATOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeasePong;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that crashed leaves its lease in the store until it runs out. The next coordinator places no shard
 * until it holds that lease, so it asks again the moment the store said the predecessor's lease ends, not a quarter
 * lease after its last attempt (up to half a second of every failover, with the default lease).
 */
class PredecessorStoreLeaseTest {

    private static final long RENEW = Duration.ofSeconds(2).toNanos() / 4;

    private static final Duration PREDECESSORS_LEFT = Duration.ofMillis(100);

    private static final Member B = new Member(0, 3, "b");

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    @Test
    void theNextCoordinatorTakesTheStoreLeaseWhenItsPredecessorsRunsOut() throws Exception {
        keeper.onView(List.of(COORDINATOR, host.self(), B), System.nanoTime());
        // the coordinator renewed its lease in the store just before it crashed
        host.store()
                .acquireCoordinatorLease(host.clusterName(), COORDINATOR.id(), COORDINATOR.name(), PREDECESSORS_LEFT)
                .get(1, TimeUnit.SECONDS);
        long refused = System.nanoTime();
        keeper.onView(List.of(host.self(), B), refused);
        keeper.onPong(B, new LeasePong(host.lastPing().round(), 1));
        keeper.tick(refused);
        assertThat(keeper.inCharge(refused))
                .as("the predecessor still holds the store's lease")
                .isFalse();

        // its lease runs out in the store
        long ends = refused + PREDECESSORS_LEFT.toNanos();
        Awaitility.await().pollInterval(Duration.ofMillis(5)).until(() -> System.nanoTime() - ends > 0);
        long now = System.nanoTime();
        assumeTrue(now - refused < RENEW, "the machine stalled past the next regular renewal: nothing to tell apart");
        keeper.tick(now);
        assertThat(keeper.inCharge(now))
                .as("taken at the first tick after the predecessor's lease ended, before the next regular renewal")
                .isTrue();
    }
}
