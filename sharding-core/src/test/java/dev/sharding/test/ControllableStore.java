package dev.sharding.test;

import dev.sharding.internal.store.InMemoryShardingStore;
import dev.sharding.spi.ShardingStore;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A store shared by the nodes of one JVM whose writes a test can hold back or fail, and which counts reads, to test
 * what the runtime does around the store.
 */
public final class ControllableStore implements ShardingStore {

    private final InMemoryShardingStore delegate = new InMemoryShardingStore();

    private final AtomicLong reads = new AtomicLong();

    private volatile Predicate<String> failWrites = id -> false;

    private volatile java.util.function.BiPredicate<String, Long> holdWrites = (id, epoch) -> false;

    private volatile CompletableFuture<Void> release = new CompletableFuture<>();

    /** Fails the writes of the matching entity ids. @param ids which */
    public void failWrites(Predicate<String> ids) {
        failWrites = ids;
    }

    /** Holds the matching writes (by entity id and epoch) until {@link #release()}. @param writes which */
    public void holdWrites(java.util.function.BiPredicate<String, Long> writes) {
        release = new CompletableFuture<>();
        holdWrites = writes;
    }

    /** Lets held writes go on. */
    public void release() {
        holdWrites = (id, epoch) -> false;
        release.complete(null);
    }

    /** Reads made so far. @return the count */
    public long reads() {
        return reads.get();
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        reads.incrementAndGet();
        return delegate.read(typeName, entityId);
    }

    @Override
    public CompletableFuture<StoredState> write(String typeName, String entityId, int shardId, long epoch,
            byte[] state) {
        if (failWrites.test(entityId)) {
            return CompletableFuture.failedFuture(new IllegalStateException("store unavailable for " + entityId));
        }
        if (holdWrites.test(entityId, epoch)) {
            return release.thenCompose(v -> delegate.write(typeName, entityId, shardId, epoch, state));
        }
        return delegate.write(typeName, entityId, shardId, epoch, state);
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
    public CompletableFuture<Void> updateRemembered(String typeName, int shardId, Collection<String> started,
            Collection<String> stopped) {
        return delegate.updateRemembered(typeName, shardId, started, stopped);
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
    public CompletableFuture<CoordinatorLease> acquireCoordinatorLease(String clusterName, String holderId,
            String holderName, java.time.Duration duration) {
        return delegate.acquireCoordinatorLease(clusterName, holderId, holderName, duration);
    }

    @Override
    public CompletableFuture<java.util.Map<Integer, Long>> currentEpochs(String typeName) {
        return delegate.currentEpochs(typeName);
    }

    @Override
    public CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        return delegate.releaseCoordinatorLease(clusterName, holderId);
    }

    @Override
    public void close() {
    }
}
