package dev.sharding.store;

import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The coordinator leases of an {@link InMemoryShardingStore}, one per cluster name, with the rule of a database-backed
 * store: one cluster per store, so another cluster's live lease refuses a request. Not thread-safe: the store calls
 * it under its own monitor.
 */
final class InMemoryLeases {

    private final Map<String, Lease> leases = new HashMap<>();

    private record Lease(String holderId, String holderName, long expiresNanos) {}

    CoordinatorLease acquire(String clusterName, String holderId, String holderName, Duration duration, long now) {
        for (Map.Entry<String, Lease> other : leases.entrySet()) {
            Lease held = other.getValue();
            if (!other.getKey().equals(clusterName) && held.expiresNanos() - now > 0) {
                return CoordinatorLease.heldByAnotherCluster(
                        other.getKey(),
                        held.holderId(),
                        held.holderName(),
                        Duration.ofNanos(held.expiresNanos() - now));
            }
        }
        Lease lease = leases.get(clusterName);
        if (lease == null || lease.expiresNanos() - now <= 0 || lease.holderId().equals(holderId)) {
            lease = new Lease(holderId, holderName, now + duration.toNanos());
            leases.put(clusterName, lease);
        }
        return new CoordinatorLease(
                lease.holderId().equals(holderId),
                lease.holderId(),
                lease.holderName(),
                Duration.ofNanos(Math.max(0, lease.expiresNanos() - now)));
    }

    void release(String clusterName, String holderId) {
        Lease lease = leases.get(clusterName);
        if (lease != null && lease.holderId().equals(holderId)) {
            leases.remove(clusterName);
        }
    }
}
