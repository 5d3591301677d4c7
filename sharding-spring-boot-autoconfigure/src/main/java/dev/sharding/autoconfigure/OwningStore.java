package dev.sharding.autoconfigure;

import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A store that also closes the connection pool it was made over (the embedded database's) when it closes.
 */
final class OwningStore implements ShardingStore {

    private final ShardingStore store;

    private final AutoCloseable resource;

    OwningStore(ShardingStore store, AutoCloseable resource) {
        this.store = store;
        this.resource = resource;
    }

    /** The store it wraps. */
    ShardingStore store() {
        return this.store;
    }

    @Override
    public Set<Capability> capabilities() {
        return this.store.capabilities();
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        return this.store.read(typeName, entityId);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state) {
        return this.store.write(typeName, entityId, shardId, epoch, state);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state, byte @Nullable [] applied) {
        return this.store.write(typeName, entityId, shardId, epoch, state, applied);
    }

    @Override
    public void recordBatchesIn(ShardingMetrics metrics) {
        this.store.recordBatchesIn(metrics);
    }

    @Override
    public CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
        return this.store.delete(typeName, entityId, shardId, epoch);
    }

    @Override
    public CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
        return this.store.nextEpoch(typeName, shardId);
    }

    @Override
    public CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, Collection<String> started, Collection<String> stopped) {
        return this.store.updateRemembered(typeName, shardId, started, stopped);
    }

    @Override
    public CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
        return this.store.updateRemembered(typeName, shardId, epoch, started, stopped);
    }

    @Override
    public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
        return this.store.remembered(typeName, shardId);
    }

    @Override
    public CompletableFuture<java.util.Map<Integer, Long>> currentEpochs(String typeName) {
        return this.store.currentEpochs(typeName);
    }

    @Override
    public CompletableFuture<Long> currentTimeMillis() {
        return this.store.currentTimeMillis();
    }

    @Override
    public CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
        return this.store.shardsWithRemembered(typeName);
    }

    @Override
    public CompletableFuture<Long> clearShardingData() {
        return this.store.clearShardingData();
    }

    @Override
    public CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
            String clusterName, String holderId, String holderName, java.time.Duration duration) {
        return this.store.acquireCoordinatorLease(clusterName, holderId, holderName, duration);
    }

    @Override
    public CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        return this.store.releaseCoordinatorLease(clusterName, holderId);
    }

    @Override
    public CompletableFuture<Optional<String>> storeId() {
        return this.store.storeId();
    }

    @Override
    public void close() {
        try {
            this.store.close();
        } finally {
            try {
                this.resource.close();
            } catch (Exception e) {
                LoggerFactory.getLogger(OwningStore.class).warn("Closing the store's connections failed", e);
            }
        }
    }
}
