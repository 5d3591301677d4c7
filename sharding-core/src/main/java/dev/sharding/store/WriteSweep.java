package dev.sharding.store;

import dev.sharding.ShardingException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The write deadline of a {@link BatchWriter}: writes that cannot be committed within twice the query timeout fail,
 * none of them applied, rather than wait for a database that does not answer. The writer tells it when it is busy with
 * a batch and whether the database answered; the watchdog's thread runs {@link #sweep()}, and the writer asks
 * {@link #expired} of each operation it takes.
 */
final class WriteSweep {

    private final Duration queryTimeout;

    /** How long the writer may take over a batch, connection included, before the queued writes fail. */
    private final Duration writeDeadline;

    private final BlockingQueue<StoreOperation> queue;

    /** Runs a completion on the writer's completion thread. */
    private final Consumer<Runnable> completeLater;

    /**
     * Whether the writer's last transaction, or its last check, failed because the database did not answer at all
     * ({@link StoreTimeouts#unanswered}); until the database answers a check the writer takes no write, and the writes
     * queued meanwhile fail at once ({@link #sweep()}) rather than each wait for a database that does not answer.
     */
    private volatile boolean unanswered;

    /** What the writer's last transaction or check failed with while {@link #unanswered}, if known. */
    private volatile @Nullable Exception unansweredFailure;

    /** When the writer began its current batch ({@link System#nanoTime()}), 0 while it has none. */
    private volatile long busySince;

    /** The batch the writer holds while it waits for a connection, which {@link #sweep()} may fail instead. */
    private final AtomicReference<@Nullable WriteBatch> unstarted = new AtomicReference<>();

    /**
     * Creates the deadline of a writer.
     *
     * @param queryTimeout the longest a statement may run; the write deadline is twice as long
     * @param queue the writer's queue, whose writes the sweep fails
     * @param completeLater runs a completion on the writer's completion thread
     */
    WriteSweep(Duration queryTimeout, BlockingQueue<StoreOperation> queue, Consumer<Runnable> completeLater) {
        this.queryTimeout = queryTimeout;
        this.writeDeadline = queryTimeout.multipliedBy(2);
        this.queue = queue;
        this.completeLater = completeLater;
    }

    /** @return how long the writer may take over a batch, connection included */
    Duration writeDeadline() {
        return writeDeadline;
    }

    /**
     * The writer begins a batch, or a check of the database.
     *
     * @return the deadline of the work ({@link System#nanoTime()})
     */
    long busy() {
        busySince = System.nanoTime();
        return busySince + writeDeadline.toNanos();
    }

    /** The writer is done with its batch. */
    void idle() {
        busySince = 0;
    }

    /** @return whether the writer has no batch */
    boolean isIdle() {
        return busySince == 0;
    }

    /** @return the deadline of the writer's current batch ({@link System#nanoTime()}) */
    long deadline() {
        return busySince + writeDeadline.toNanos();
    }

    /** @return whether the database did not answer the writer's last transaction or check */
    boolean unanswered() {
        return unanswered;
    }

    /** @param value whether the database did not answer the writer's last transaction or check */
    void unanswered(boolean value) {
        unanswered(value, null);
    }

    /**
     * @param value whether the database did not answer the writer's last transaction or check
     * @param failure what that transaction or check failed with, the cause of the writes the sweep fails meanwhile
     */
    void unanswered(boolean value, @Nullable Exception failure) {
        unansweredFailure = value ? failure : null;
        unanswered = value;
    }

    /**
     * The writer holds a batch that has not got its connection, or one rolled back: the sweep may fail it, until
     * the writer begins it ({@link #begin}).
     *
     * @param batch the batch
     */
    void waiting(WriteBatch batch) {
        unstarted.set(batch);
    }

    /**
     * The writer begins the transaction of a batch it held.
     *
     * @param batch the batch
     * @return false when the sweep failed it meanwhile: it is not to be written any more
     */
    boolean begin(WriteBatch batch) {
        return unstarted.compareAndSet(batch, null);
    }

    /**
     * Whether the sweep failed a batch the writer held since it last called {@link #waiting}.
     *
     * @param batch the batch
     * @return true when failed
     */
    boolean sweptAway(WriteBatch batch) {
        return unstarted.get() != batch;
    }

    /** The writer is done with the batch it held, whatever became of it. */
    void done() {
        unstarted.set(null);
        busySince = 0;
    }

    /**
     * Fails the writes that cannot be committed in time, on the watchdog's thread: when the writer has spent more than
     * the write deadline on one batch (waiting for a connection, or in a transaction the watchdog is about to
     * abort), the writes still queued behind it and the batch that has not got its connection fail now, none of
     * them applied, rather than wait for a database that does not answer.
     */
    void sweep() {
        long since = busySince;
        boolean late = since != 0 && System.nanoTime() - since >= writeDeadline.toNanos();
        if (!late && !unanswered) {
            return;
        }
        String reason = late
                ? "the database does not answer, or no connection is free: the store's writer has been"
                        + " waiting for it for more than " + StoreTimeouts.format(writeDeadline) + " (twice "
                        + StoreTimeouts.limit(queryTimeout, queryTimeout) + ")"
                : "the database does not answer: the store's last transaction got no answer, or no connection that"
                        + " worked, within "
                        + StoreTimeouts.format(writeDeadline) + " (twice "
                        + StoreTimeouts.limit(queryTimeout, queryTimeout)
                        + "), and the writer takes writes again once the database answers it";
        // a batch the writer holds (it began before the database stopped answering) fails only when late
        @Nullable WriteBatch waiting = late ? unstarted.getAndSet(null) : null;
        if (waiting != null) {
            completeLater.accept(() -> waiting.fail(reason, null));
        }
        List<StoreOperation> queued = new ArrayList<>();
        queue.drainTo(queued);
        List<StoreOperation> failing = new ArrayList<>(queued.size());
        for (StoreOperation op : queued) {
            if (op instanceof StoreOperation.Stop) {
                queue.add(op);
            } else {
                failing.add(op);
            }
        }
        @Nullable Exception cause = late ? null : unansweredFailure;
        if (!failing.isEmpty()) {
            completeLater.accept(() -> {
                for (StoreOperation op : failing) {
                    op.future()
                            .completeExceptionally(new ShardingException(
                                    "The store could not begin the " + op.describe() + ": " + reason
                                            + "; it was not applied",
                                    cause));
                }
            });
        }
    }

    /**
     * Fails an operation queued for longer than the write deadline, unapplied, rather than begin a transaction for it:
     * its caller has given up on it long ago, and a node whose link to the database is slow would otherwise go on
     * holding its shards' rows with writes nobody waits for (after it lost the shards, those of their new owner
     * wait behind them). True when it did.
     *
     * @param op the operation the writer took
     * @param heldBack told of the operation once it failed: whether it waited for a shard another transaction held,
     *     which then waits for it no longer
     * @return true when the operation failed
     */
    boolean expired(StoreOperation op, java.util.function.Predicate<StoreOperation> heldBack) {
        long queued = op.queuedNanos();
        if (queued == 0 || System.nanoTime() - queued < writeDeadline.toNanos()) {
            return false;
        }
        String deadline = " for more than " + StoreTimeouts.format(writeDeadline) + " (twice "
                + StoreTimeouts.limit(queryTimeout, queryTimeout) + ")";
        String reason;
        if (heldBack.test(op)) {
            reason = "another transaction held the rows of its shard (the shard's previous owner, slow or cut off"
                    + " in the middle of a write?)" + deadline;
        } else if (unanswered) {
            // the same cause the sweep reports, whichever of the two finds the write first
            reason = "the database does not answer: the write waited for the store's writer" + deadline;
        } else {
            reason = "it waited for the store's writer (the database, or the link to it, is slow)" + deadline;
        }
        completeLater.accept(() -> op.future()
                .completeExceptionally(new ShardingException(
                        "The store could not apply the " + op.describe() + ": " + reason + "; it was not applied")));
        return true;
    }
}
