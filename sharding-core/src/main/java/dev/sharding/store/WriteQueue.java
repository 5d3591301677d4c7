package dev.sharding.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The queue of a {@link BatchWriter} and how the writer takes a batch from it: everything queued, at most the batch
 * size, after the operations the last transaction left for later. After a transaction of many operations (writes
 * arriving from many callers at once) the writer lingers up to the store's batch linger for more before it begins the
 * next, until it holds as many as that one, so that fewer, larger transactions carry the same writes.
 */
final class WriteQueue {

    /** A lingering writer stops waiting once its batch holds this many operations, however large the one before. */
    private static final int LINGER_UNTIL = 32;

    /** How often a lingering writer looks at its queue. */
    private static final long LINGER_SLICE_NANOS = 100_000;

    private final BlockingQueue<StoreOperation> queue = new LinkedBlockingQueue<>();

    /** Counted down when the writer stops: the queue takes nothing more. */
    private final CountDownLatch stopping;

    private final int maxBatchSize;

    private final long lingerNanos;

    /** The size of the writer's previous batch; only the writer thread uses it. */
    private int lastBatch;

    /**
     * Creates the queue of a writer.
     *
     * @param stopping counted down when the writer stops
     * @param maxBatchSize the most operations per transaction
     * @param batchLinger the longest to wait for more operations before a transaction, after a large one
     */
    WriteQueue(CountDownLatch stopping, int maxBatchSize, Duration batchLinger) {
        this.stopping = stopping;
        this.maxBatchSize = maxBatchSize;
        this.lingerNanos = batchLinger.toNanos();
    }

    /** @return the queued operations, for the sweep that fails them when the writer is late */
    BlockingQueue<StoreOperation> operations() {
        return queue;
    }

    /**
     * Queues an operation, or fails it when the writer is stopping.
     *
     * @param op the operation
     * @param future its future
     * @param <T> the future's type
     * @return the future
     */
    <T> CompletableFuture<T> submit(StoreOperation op, CompletableFuture<T> future) {
        if (stopping.getCount() == 0) {
            future.completeExceptionally(BatchWriter.closedException(op.describe()));
            return future;
        }
        queue.add(op);
        if (stopping.getCount() == 0 && queue.remove(op)) {
            // stop() raced with this call and may already have stopped the writer
            future.completeExceptionally(BatchWriter.closedException(op.describe()));
        }
        return future;
    }

    /** @param stop the pill that stops the writer when it takes it */
    void stop(StoreOperation.Stop stop) {
        queue.add(stop);
    }

    /** @return how many operations wait */
    int size() {
        return queue.size();
    }

    /** @return whether none waits */
    boolean isEmpty() {
        return queue.isEmpty();
    }

    /**
     * Takes the operations of the next batch: the ones left for later first, then what is queued; waits for the
     * first when there is nothing, or, with operations left for later, no longer than their pause.
     *
     * @param drained where to add them, empty
     * @param deferred the operations the last transaction left for later
     * @throws InterruptedException when the writer is interrupted while it waits
     */
    void take(List<StoreOperation> drained, DeferredOperations deferred) throws InterruptedException {
        if (deferred.isEmpty()) {
            drained.add(queue.take());
        } else {
            // operations of a shard another transaction holds: try them again after a pause, or with the next work
            // that arrives
            drained.addAll(deferred.all());
            @Nullable StoreOperation next = queue.poll(deferred.pauseNanos(), TimeUnit.NANOSECONDS);
            if (next != null) {
                drained.add(next);
            }
        }
        queue.drainTo(drained, Math.max(0, maxBatchSize - drained.size()));
        if (lingerNanos > 0 && lastBatch >= JdbcStoreSettings.LINGER_AFTER_BATCH_OF) {
            linger(drained);
        }
        lastBatch = drained.size();
    }

    /**
     * Waits, in short slices, for more operations to join the batch, until it holds as many as the writer's previous
     * transaction (the callers whose writes made that one are the ones coming back; waiting for more only adds to
     * every write's time), or {@link #LINGER_UNTIL}, or the linger is over; a {@link StoreOperation.Stop} ends the
     * wait at once.
     */
    private void linger(List<StoreOperation> drained) {
        long deadline = System.nanoTime() + lingerNanos;
        int until = Math.min(lastBatch, Math.min(LINGER_UNTIL, maxBatchSize));
        while (drained.size() < until && !(drained.get(drained.size() - 1) instanceof StoreOperation.Stop)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            LockSupport.parkNanos(Math.min(left, LINGER_SLICE_NANOS));
            queue.drainTo(drained, maxBatchSize - drained.size());
        }
    }

    /** Fails every queued operation, as not done before the store closed; completes the stop pills. */
    void failQueued() {
        List<StoreOperation> left = new ArrayList<>();
        queue.drainTo(left);
        for (StoreOperation op : left) {
            if (op instanceof StoreOperation.Stop s) {
                s.future().complete(null);
            } else {
                op.future().completeExceptionally(BatchWriter.closedException(op.describe()));
            }
        }
    }
}
