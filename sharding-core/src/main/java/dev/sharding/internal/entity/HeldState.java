package dev.sharding.internal.entity;

import dev.sharding.spi.ShardingStore;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What an entity's durable state looks like to its cell, whether it keeps a value ({@link EntityStateImpl}) or is
 * the fold of its events ({@link EventSourcedStateImpl}): changed by a handler, written through after it (or forgotten
 * when it failed), and carried to the shard's next owner as bytes and a version. Confined to the entity's mailbox.
 */
interface HeldState {

    /** Whether the current message changed it. */
    boolean isDirty();

    /** Forgets the changes made since the last write: the message that made them failed. */
    void discard();

    /**
     * Writes the changes through under the shard's epoch, with the ids of the messages the entity applied. On success
     * they become the stored value; on failure the value goes back to the stored one.
     *
     * @param applied the ids of applied messages to store with it, or {@code null} for none
     * @return completes when durable, or failed as the store failed it
     * @throws RuntimeException when the changes cannot be encoded; the value is then back to the stored one, and the
     *     store was not called
     */
    CompletableFuture<Void> writeThrough(
            ShardingStore store, String typeName, String entityId, int shardId, long epoch, byte @Nullable [] applied);

    /** The state as last stored, for the shard's next owner, or {@code null} when none is. */
    byte @Nullable [] storedBytes();

    /** The version of the state as last stored (for event-sourced state, its last sequence number). */
    long storedVersion();
}
