package dev.sharding.store;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations a {@link BatchWriter}'s last transaction left for later ({@link WriteBatch#deferred()}): those of a
 * shard whose rows another transaction holds. They go first into the next batch, in queue order, and the writer waits
 * for new work no longer than a pause that grows while none of them gets through. Only the writer thread uses it.
 */
final class DeferredOperations {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final LinkedHashSet<StoreOperation.Batched> deferred = new LinkedHashSet<>();

    /** How long the writer waits for new work before it tries them again. */
    private long pauseNanos = FIRST_PAUSE_NANOS;

    /** @return whether no operation waits */
    boolean isEmpty() {
        return deferred.isEmpty();
    }

    /** @return the operations, in queue order, for the next batch */
    List<StoreOperation.Batched> all() {
        return new ArrayList<>(deferred);
    }

    /** @return how long the writer waits for new work before it tries them again */
    long pauseNanos() {
        return pauseNanos;
    }

    /**
     * Forgets an operation that fails or completes otherwise.
     *
     * @param op the operation
     * @return whether it was waiting
     */
    boolean remove(StoreOperation op) {
        return deferred.remove(op);
    }

    /** Forgets them all: every one of them was in a batch that failed, or was failed by the sweep. */
    void clear() {
        deferred.clear();
    }

    /**
     * Keeps what the committed transaction left for later and sets the pause before they are tried again: longer
     * while nothing of them gets through.
     *
     * @param left the operations left, in queue order
     */
    void keep(List<StoreOperation.Batched> left) {
        boolean noneThrough = !deferred.isEmpty() && new HashSet<>(left).containsAll(deferred);
        if (!left.isEmpty() && deferred.isEmpty()) {
            LOG.debug(
                    "{} store operations wait for shards whose rows another transaction holds: {}",
                    left.size(),
                    left.get(0).describe());
        }
        deferred.clear();
        deferred.addAll(left);
        if (left.isEmpty()) {
            pauseNanos = FIRST_PAUSE_NANOS;
        } else if (noneThrough) {
            pauseNanos = Math.min(MAX_PAUSE_NANOS, pauseNanos * 2);
        }
    }

    /**
     * Fails every one of them: the writer stops.
     *
     * @param completeLater runs a completion on the writer's completion thread
     */
    void failAll(Consumer<Runnable> completeLater) {
        List<StoreOperation.Batched> failing = new ArrayList<>(deferred);
        deferred.clear();
        if (!failing.isEmpty()) {
            completeLater.accept(() -> failing.forEach(
                    op -> op.future().completeExceptionally(BatchWriter.closedException(op.describe()))));
        }
    }
}
