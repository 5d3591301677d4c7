package dev.sharding.internal.region;

import dev.sharding.internal.entity.EntityCell;
import dev.sharding.spi.EntityTypeMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The entities of one region on this node, counted as they start, stop and passivate: the live ones (for the limit of
 * live entities, which asks for a sweep when passed, and for the statistics), the passivations, and, for a type that
 * remembers its entities, the {@link RememberJournal} of those started and forgotten.
 *
 * <p>Any thread: the entity threads report, the control thread flushes.
 */
final class RegionEntities {

    private final RegionHost node;

    private final AtomicInteger active = new AtomicInteger();

    private final AtomicLong passivations = new AtomicLong();

    /** The ids of live entities kept in the store (remember-entities), or {@code null} for a type that does not. */
    private final @Nullable RememberJournal journal;

    /** The region's limit of live entities now (zero for none); set once the region's passivation exists. */
    private volatile java.util.function.IntSupplier limit = () -> 0;

    private final EntityTypeMetrics metrics;

    RegionEntities(RegionHost node, @Nullable RememberJournal journal, EntityTypeMetrics metrics) {
        this.node = node;
        this.journal = journal;
        this.metrics = metrics;
    }

    /** Where the region's limit of live entities comes from. */
    void limitBy(java.util.function.IntSupplier value) {
        limit = value;
    }

    void started(EntityCell cell) {
        if (journal != null) {
            journal.started(cell.shardId(), cell.shardEpoch(), cell.entityId());
        }
        int n = active.incrementAndGet();
        int max = limit.getAsInt();
        if (max > 0 && n > max) {
            node.requestSweep();
        }
    }

    void stopped() {
        active.decrementAndGet();
    }

    void passivated(EntityCell cell) {
        passivations.incrementAndGet();
        metrics.passivated();
        if (journal != null) {
            journal.stopped(cell.shardId(), cell.shardEpoch(), cell.entityId());
        }
    }

    int active() {
        return active.get();
    }

    long passivations() {
        return passivations.get();
    }

    /**
     * Writes the entities started and forgotten since the last flush to the store: those of one shard, or of all
     * ({@code shardId} -1); see {@link RememberJournal#flush}. Control thread.
     *
     * @return completes when the writes are done (failed ones included)
     */
    CompletableFuture<Void> flushRemembered(int shardId) {
        return journal == null ? CompletableFuture.completedFuture(null) : journal.flush(shardId);
    }
}
