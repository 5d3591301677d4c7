package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What is queued for the writer thread of a {@link JdbcShardingStore}: a change ({@link Batched}), committed in one
 * batch transaction and then its future completed, or the {@link Stop} that ends the writer.
 */
sealed interface StoreOperation {

    /** A change a {@link WriteBatch} applies: every operation but {@link Stop}. */
    sealed interface Batched extends StoreOperation permits StateChange, Remember, Clear {}

    /**
     * The future the caller holds.
     *
     * @return the future
     */
    CompletableFuture<?> future();

    /**
     * Says what the operation is, for error messages.
     *
     * @return a short description such as "write of [account/42]"
     */
    String describe();

    /**
     * When the operation was queued ({@link System#nanoTime()}), for the writer's deadline; 0 for operations without
     * one.
     *
     * @return the time
     */
    default long queuedNanos() {
        return 0;
    }

    /** A change of one entity's state row, fenced by the current epoch of the entity's shard. */
    sealed interface StateChange extends Batched permits Write, Delete, Append {

        /**
         * The entity type.
         *
         * @return the type name
         */
        String typeName();

        /**
         * The entity id.
         *
         * @return the id
         */
        String entityId();

        /**
         * The entity's shard, whose current epoch fences the change.
         *
         * @return the shard id
         */
        int shardId();

        /**
         * The epoch the change was made under.
         *
         * @return the epoch
         */
        long epoch();

        /**
         * The entity's shard.
         *
         * @return the shard's key
         */
        default PortableSql.ShardKey shard() {
            return new PortableSql.ShardKey(typeName(), shardId());
        }
    }

    /**
     * Writes one entity's state.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard, whose current epoch fences the write
     * @param epoch the writer's epoch
     * @param state the encoded state (a private copy)
     * @param applied the encoded ids of the messages the entity applied lately (a private copy), or null
     * @param future completed with the stored state
     * @param queuedNanos when it was queued
     */
    record Write(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            byte[] state,
            byte @Nullable [] applied,
            CompletableFuture<StoredState> future,
            long queuedNanos)
            implements StateChange {

        @Override
        public String describe() {
            return "write of [" + typeName + "/" + entityId + "] under epoch " + epoch;
        }
    }

    /**
     * Deletes one entity's state.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard, whose current epoch fences the delete
     * @param epoch the writer's epoch
     * @param future completed once deleted
     * @param queuedNanos when it was queued
     */
    record Delete(
            String typeName, String entityId, int shardId, long epoch, CompletableFuture<Void> future, long queuedNanos)
            implements StateChange {

        @Override
        public String describe() {
            return "delete of [" + typeName + "/" + entityId + "] under epoch " + epoch;
        }
    }

    /**
     * Appends events to one entity's journal, with its applied message ids and a snapshot; its state row is the
     * journal's head (its version the last sequence number), fenced and locked as a write's.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard, whose current epoch fences the append
     * @param epoch the writer's epoch
     * @param expectedLastSequenceNr the entity's last sequence number as the appender knows it
     * @param events the events (private copies of the payloads)
     * @param applied the encoded ids of the messages the entity applied lately (a private copy), or null
     * @param snapshot a snapshot to keep (a private copy), or null
     * @param future completed with the new last sequence number
     * @param queuedNanos when it was queued
     */
    record Append(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            long expectedLastSequenceNr,
            List<dev.sharding.spi.NewEvent> events,
            byte @Nullable [] applied,
            dev.sharding.spi.@Nullable Snapshot snapshot,
            CompletableFuture<Long> future,
            long queuedNanos)
            implements StateChange {

        @Override
        public String describe() {
            return "append of " + events.size() + " events to [" + typeName + "/" + entityId
                    + "] after sequence number " + expectedLastSequenceNr + " under epoch " + epoch;
        }

        /**
         * The entity's last sequence number once the append is applied.
         *
         * @return the number
         */
        long lastSequenceNr() {
            return expectedLastSequenceNr + events.size();
        }
    }

    /**
     * Adds and removes remembered entities of one shard (added first, then removed).
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @param epoch the epoch of the shard's owner that recorded the changes, which fences them as it fences state
     *     writes; {@link #UNFENCED} for none
     * @param started ids to remember
     * @param stopped ids to forget
     * @param future completed once stored
     * @param queuedNanos when it was queued
     */
    record Remember(
            String typeName,
            int shardId,
            long epoch,
            List<String> started,
            List<String> stopped,
            CompletableFuture<Void> future,
            long queuedNanos)
            implements Batched {

        /** The epoch of changes that no epoch fences. */
        static final long UNFENCED = Long.MAX_VALUE;

        @Override
        public String describe() {
            return "update of the remembered entities of [" + typeName + "/shard " + shardId + "]"
                    + (epoch == UNFENCED ? "" : " under epoch " + epoch);
        }
    }

    /**
     * Deletes all remembered entities (not the epochs), after the operations queued before it.
     *
     * @param future completed once deleted, with how many ids were
     */
    record Clear(CompletableFuture<Long> future) implements Batched {

        @Override
        public String describe() {
            return "clearing of the sharding data";
        }
    }

    /**
     * Tells the writer thread to stop once the operations queued before it are done; not a {@link Batched} change, so
     * never part of a batch.
     *
     * @param future completed when the writer stops
     */
    record Stop(CompletableFuture<Void> future) implements StoreOperation {

        @Override
        public String describe() {
            return "stop";
        }
    }
}
