package dev.sharding.test;

import dev.sharding.store.InMemoryShardingStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A store shared by the nodes of one JVM whose writes a test can hold back or fail, whose reads it can fail, and which
 * counts reads, to test
 * what the runtime does around the store.
 */
public class ControllableStore extends ForwardingStore {

    /** A store over a new in-memory store. */
    public ControllableStore() {
        super(new InMemoryShardingStore());
    }

    private final AtomicLong reads = new AtomicLong();

    private final AtomicLong held = new AtomicLong();

    private volatile Predicate<String> failWrites = id -> false;

    private volatile Predicate<String> failReads = id -> false;

    private volatile java.util.function.BiPredicate<String, Long> holdWrites = (id, epoch) -> false;

    private volatile CompletableFuture<Void> release = new CompletableFuture<>();

    /** Fails the writes of the matching entity ids. @param ids which */
    public void failWrites(Predicate<String> ids) {
        failWrites = ids;
    }

    /** Fails the reads of the matching entity ids. @param ids which */
    public void failReads(Predicate<String> ids) {
        failReads = ids;
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

    /** Writes held back so far. @return the count */
    public long held() {
        return held.get();
    }

    /** Reads made so far. @return the count */
    public long reads() {
        return reads.get();
    }

    @Override
    public CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        reads.incrementAndGet();
        if (failReads.test(entityId)) {
            return CompletableFuture.failedFuture(new IllegalStateException("store unavailable for " + entityId));
        }
        return super.read(typeName, entityId);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state) {
        return write(typeName, entityId, shardId, epoch, state, null);
    }

    @Override
    public CompletableFuture<StoredState> write(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            byte[] state,
            byte @org.jspecify.annotations.Nullable [] applied) {
        if (failWrites.test(entityId)) {
            return CompletableFuture.failedFuture(new IllegalStateException("store unavailable for " + entityId));
        }
        if (holdWrites.test(entityId, epoch)) {
            held.incrementAndGet();
            return release.thenCompose(v -> super.write(typeName, entityId, shardId, epoch, state, applied));
        }
        return super.write(typeName, entityId, shardId, epoch, state, applied);
    }
}
