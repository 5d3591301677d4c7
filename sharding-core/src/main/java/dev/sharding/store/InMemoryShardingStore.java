package dev.sharding.store;

import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.StaleEpochException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * A store in this JVM's memory: no durability, shared only by the nodes of one JVM. For tests, and for applications
 * whose entities need no state beyond a node's life. All operations complete at once, under one monitor.
 */
public final class InMemoryShardingStore implements ShardingStore {

    private static final Set<Capability> CAPABILITIES = Set.of(Capability.values());

    private final Map<String, StoredState> states = new HashMap<>();

    private final Map<String, Long> epochs = new HashMap<>();

    private final Map<String, Set<String>> remembered = new HashMap<>();

    private static String key(String typeName, String id) {
        return typeName + '\u0000' + id;
    }

    /** Every capability: the store keeps applied message ids, reads epochs and grants every lease request. */
    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public synchronized CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        return CompletableFuture.completedFuture(Optional.ofNullable(states.get(key(typeName, entityId))));
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state) {
        return write(typeName, entityId, shardId, epoch, state, null);
    }

    @Override
    public synchronized CompletableFuture<StoredState> write(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            byte[] state,
            byte @org.jspecify.annotations.Nullable [] applied) {
        String key = key(typeName, entityId);
        StoredState old = states.get(key);
        long fence = fence(typeName, shardId, old);
        if (fence > epoch) {
            return CompletableFuture.failedFuture(new StaleEpochException(typeName, entityId, epoch, fence));
        }
        StoredState written = new StoredState(
                state.clone(), old == null ? 1 : old.version() + 1, epoch, applied == null ? null : applied.clone());
        states.put(key, written);
        return CompletableFuture.completedFuture(written);
    }

    @Override
    public synchronized CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
        String key = key(typeName, entityId);
        StoredState old = states.get(key);
        long fence = fence(typeName, shardId, old);
        if (fence > epoch) {
            return CompletableFuture.failedFuture(new StaleEpochException(typeName, entityId, epoch, fence));
        }
        states.remove(key);
        return CompletableFuture.completedFuture(null);
    }

    /** The lowest epoch a write must have: the shard's current one, and the row's last one. */
    private long fence(String typeName, int shardId, @org.jspecify.annotations.Nullable StoredState old) {
        long shardEpoch = epochs.getOrDefault(key(typeName, Integer.toString(shardId)), 0L);
        return Math.max(shardEpoch, old == null ? 0 : old.epoch());
    }

    @Override
    public synchronized CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
        return CompletableFuture.completedFuture(epochs.merge(key(typeName, Integer.toString(shardId)), 1L, Long::sum));
    }

    @Override
    public synchronized CompletableFuture<Map<Integer, Long>> currentEpochs(String typeName) {
        Map<Integer, Long> result = new HashMap<>();
        String prefix = typeName + '\u0000';
        epochs.forEach((k, epoch) -> {
            if (k.startsWith(prefix)) {
                result.put(Integer.parseInt(k.substring(prefix.length())), epoch);
            }
        });
        return CompletableFuture.completedFuture(result);
    }

    @Override
    public synchronized CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
        long shardEpoch = epochs.getOrDefault(key(typeName, Integer.toString(shardId)), 0L);
        if (shardEpoch > epoch) {
            return CompletableFuture.failedFuture(
                    new StaleEpochException(typeName, "shard " + shardId, epoch, shardEpoch));
        }
        return updateRemembered(typeName, shardId, started, stopped);
    }

    @Override
    public synchronized CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, Collection<String> started, Collection<String> stopped) {
        Set<String> ids = remembered.computeIfAbsent(key(typeName, Integer.toString(shardId)), k -> new HashSet<>());
        ids.addAll(started);
        ids.removeAll(stopped);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
        return CompletableFuture.completedFuture(
                Set.copyOf(remembered.getOrDefault(key(typeName, Integer.toString(shardId)), Set.of())));
    }

    @Override
    public synchronized CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
        Set<Integer> shards = new TreeSet<>();
        String prefix = typeName + '\u0000';
        remembered.forEach((k, ids) -> {
            if (k.startsWith(prefix) && !ids.isEmpty()) {
                shards.add(Integer.parseInt(k.substring(prefix.length())));
            }
        });
        return CompletableFuture.completedFuture(shards);
    }

    @Override
    public synchronized CompletableFuture<Long> clearShardingData() {
        // the epochs stay: they fence the state rows, which stay too
        long ids = remembered.values().stream().mapToLong(Set::size).sum();
        remembered.clear();
        return CompletableFuture.completedFuture(ids);
    }

    private final Map<String, Lease> leases = new HashMap<>();

    private record Lease(String holderId, String holderName, long expiresNanos) {}

    @Override
    public synchronized CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
            String clusterName, String holderId, String holderName, java.time.Duration duration) {
        long now = System.nanoTime();
        Lease lease = leases.get(clusterName);
        if (lease == null || lease.expiresNanos() - now <= 0 || lease.holderId().equals(holderId)) {
            lease = new Lease(holderId, holderName, now + duration.toNanos());
            leases.put(clusterName, lease);
        }
        return CompletableFuture.completedFuture(new CoordinatorLease(
                lease.holderId().equals(holderId),
                lease.holderId(),
                lease.holderName(),
                java.time.Duration.ofNanos(Math.max(0, lease.expiresNanos() - now))));
    }

    @Override
    public synchronized CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        Lease lease = leases.get(clusterName);
        if (lease != null && lease.holderId().equals(holderId)) {
            leases.remove(clusterName);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {}
}
