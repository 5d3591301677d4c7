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
    public CompletableFuture<Long> appendEvents(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            long expectedLastSequenceNr,
            java.util.List<dev.sharding.spi.NewEvent> events,
            byte @org.jspecify.annotations.Nullable [] applied,
            dev.sharding.spi.@org.jspecify.annotations.Nullable Snapshot snapshot) {
        return delegate.appendEvents(
                typeName, entityId, shardId, epoch, expectedLastSequenceNr, events, applied, snapshot);
    }

    @Override
    public CompletableFuture<dev.sharding.spi.Recovery> recover(String typeName, String entityId) {
        return delegate.recover(typeName, entityId);
    }

    @Override
    public CompletableFuture<java.util.List<dev.sharding.spi.PersistedEvent>> eventsOf(
            String typeName, String entityId, long fromSequenceNr, int maxCount) {
        return delegate.eventsOf(typeName, entityId, fromSequenceNr, maxCount);
    }

    @Override
    public CompletableFuture<java.util.List<dev.sharding.spi.PersistedEvent>> eventsByTag(
            String tag, long afterOffset, int maxCount) {
        return delegate.eventsByTag(tag, afterOffset, maxCount);
    }

    @Override
    public CompletableFuture<java.util.List<dev.sharding.spi.PersistedEvent>> eventsBySlice(
            String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount) {
        return delegate.eventsBySlice(typeName, minShardId, maxShardId, afterOffset, maxCount);
    }

    @Override
    public CompletableFuture<Long> lastGlobalOffset() {
        return delegate.lastGlobalOffset();
    }

    @Override
    public CompletableFuture<Long> projectionOffset(String projection, int slice) {
        return delegate.projectionOffset(projection, slice);
    }

    @Override
    public CompletableFuture<Boolean> saveProjectionOffset(String projection, int slice, long expected, long offset) {
        return delegate.saveProjectionOffset(projection, slice, expected, offset);
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
