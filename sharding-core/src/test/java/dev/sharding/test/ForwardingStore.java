package dev.sharding.test;

import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A store that forwards every call to another, for tests that change some operations.
 */
public class ForwardingStore implements ShardingStore {

    private final ShardingStore delegate;

    /**
     * Forwards to a store.
     *
     * @param delegate the store that does the work
     */
    public ForwardingStore(ShardingStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public Set<Capability> capabilities() {
        return delegate.capabilities();
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        return delegate.read(typeName, entityId);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state) {
        return delegate.write(typeName, entityId, shardId, epoch, state);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            byte[] state,
            byte @org.jspecify.annotations.Nullable [] applied) {
        return delegate.write(typeName, entityId, shardId, epoch, state, applied);
    }

    @Override
    public CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch) {
        return delegate.delete(typeName, entityId, shardId, epoch);
    }

    @Override
    public CompletableFuture<Long> nextEpoch(String typeName, int shardId) {
        return delegate.nextEpoch(typeName, shardId);
    }

    @Override
    public CompletableFuture<Map<Integer, Long>> currentEpochs(String typeName) {
        return delegate.currentEpochs(typeName);
    }

    @Override
    public CompletableFuture<Long> currentTimeMillis() {
        return delegate.currentTimeMillis();
    }

    @Override
    public CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, Collection<String> started, Collection<String> stopped) {
        return delegate.updateRemembered(typeName, shardId, started, stopped);
    }

    @Override
    public CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
        return delegate.updateRemembered(typeName, shardId, epoch, started, stopped);
    }

    @Override
    public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
        return delegate.remembered(typeName, shardId);
    }

    @Override
    public CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName) {
        return delegate.shardsWithRemembered(typeName);
    }

    @Override
    public CompletableFuture<Long> clearShardingData() {
        return delegate.clearShardingData();
    }

    @Override
    public CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
            String clusterName, String holderId, String holderName, Duration duration) {
        return delegate.acquireCoordinatorLease(clusterName, holderId, holderName, duration);
    }

    @Override
    public CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        return delegate.releaseCoordinatorLease(clusterName, holderId);
    }

    @Override
    public CompletableFuture<Optional<String>> storeId() {
        return delegate.storeId();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void recordBatchesIn(dev.sharding.spi.ShardingMetrics metrics) {
        delegate.recordBatchesIn(metrics);
    }
}
