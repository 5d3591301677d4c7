package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;

/**
 * What became of one operation of a {@link WriteBatch} in its last transaction. The caller of the operation hears of
 * it only once that transaction has committed ({@link #complete}).
 */
sealed interface Outcome
        permits Outcome.Stored, Outcome.Appended, Outcome.Done, Outcome.Deferred, Outcome.Cleared, Outcome.Refused {

    /** The outcome of every accepted delete and remembered entity change: they have no value to carry. */
    Done DONE = new Done();

    /** The outcome of every operation left for a later batch. */
    Deferred DEFERRED = new Deferred();

    /**
     * Completes the operation's future with this outcome; call after the transaction committed.
     *
     * @param op the operation this is the outcome of
     */
    void complete(StoreOperation op);

    /**
     * A write was accepted.
     *
     * @param state the row as the write left it
     */
    record Stored(StoredState state) implements Outcome {

        @Override
        public void complete(StoreOperation op) {
            ((StoreOperation.Write) op).future().complete(state);
        }
    }

    /**
     * An append of events was accepted; its events are written at the end of the transaction
     * ({@link JournalWrites}).
     *
     * @param lastSequenceNr the entity's last sequence number after it
     */
    record Appended(long lastSequenceNr) implements Outcome {

        @Override
        public void complete(StoreOperation op) {
            ((StoreOperation.Append) op).future().complete(lastSequenceNr);
        }
    }

    /** A delete or a remembered entity change was accepted; use {@link #DONE}. */
    record Done() implements Outcome {

        @Override
        public void complete(StoreOperation op) {
            op.future().complete(null);
        }
    }

    /**
     * Another transaction held the epoch row of the operation's shard: the operation was left out of the transaction,
     * for a later batch ({@link WriteBatch#deferred()}), and is not completed; use {@link #DEFERRED}.
     */
    record Deferred() implements Outcome {

        @Override
        public void complete(StoreOperation op) {
            // completed by the batch that applies it
        }
    }

    /**
     * The remembered entities were cleared.
     *
     * @param deleted how many ids were deleted; 0 for every clear of the batch but its first
     */
    record Cleared(long deleted) implements Outcome {

        @Override
        public void complete(StoreOperation op) {
            ((StoreOperation.Clear) op).future().complete(deleted);
        }
    }

    /**
     * The operation was refused alone: a newer epoch fences it off ({@link StaleEpochException}), or an append
     * expected another last sequence number ({@link dev.sharding.spi.SequenceConflictException}).
     *
     * @param failure what its caller hears
     */
    record Refused(dev.sharding.ShardingException failure) implements Outcome {

        @Override
        public void complete(StoreOperation op) {
            op.future().completeExceptionally(failure);
        }
    }
}
