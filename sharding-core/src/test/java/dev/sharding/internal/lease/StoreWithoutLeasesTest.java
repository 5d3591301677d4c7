package dev.sharding.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.SplitBrainSettings;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.ForwardingStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A store that does not declare {@link ShardingStore.Capability#COORDINATOR_LEASE} is never asked for the lease, nor
 * to release it: a coordinator over it places at once with the default strategy, as it did when the store answered
 * that it held no leases.
 */
class StoreWithoutLeasesTest {

    private final List<String> leaseCalls = new CopyOnWriteArrayList<>();

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host(new NoLeases());

    private final LeaseKeeper keeper = new LeaseKeeper(
            host, SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    @Test
    void aCoordinatorOverAStoreThatDeclaresNoLeasesNeverAsksForOneAndPlacesAtOnce() {
        long now = System.nanoTime();
        keeper.onView(List.of(host.self()), now);
        for (int i = 0; i < 4; i++) {
            keeper.tick(now + i * Duration.ofSeconds(2).toNanos());
        }
        assertThat(keeper.inCharge(now)).isTrue();
        keeper.releaseStoreLease();
        assertThat(leaseCalls)
                .as("calls of the lease on a store that declares none")
                .isEmpty();
    }

    /** A store in memory that declares no capability and records every call of the lease. */
    private final class NoLeases extends ForwardingStore {

        NoLeases() {
            super(new InMemoryShardingStore());
        }

        @Override
        public Set<Capability> capabilities() {
            return Set.of();
        }

        @Override
        public CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
                String clusterName, String holderId, String holderName, Duration duration) {
            leaseCalls.add("acquire by " + holderName);
            return super.acquireCoordinatorLease(clusterName, holderId, holderName, duration);
        }

        @Override
        public CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
            leaseCalls.add("release by " + holderId);
            return super.releaseCoordinatorLease(clusterName, holderId);
        }
    }
}
