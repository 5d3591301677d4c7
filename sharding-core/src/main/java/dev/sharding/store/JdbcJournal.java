package dev.sharding.store;

import dev.sharding.spi.EventJournal;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The event journal of a {@link JdbcShardingStore}: appends checked and queued for the batch writer, as state writes
 * are (so that they commit in the same transactions, fenced the same way), and reads on the read threads.
 */
final class JdbcJournal {

    private final BatchWriter writer;

    private final ConnectionTasks tasks;

    /**
     * Creates the journal over the store's writer and readers.
     *
     * @param writer the batch writer
     * @param tasks the read threads
     */
    JdbcJournal(BatchWriter writer, ConnectionTasks tasks) {
        this.writer = writer;
        this.tasks = tasks;
    }

    /** See {@link EventJournal#appendEvents}. */
    CompletableFuture<Long> append(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            long expectedLastSequenceNr,
            List<NewEvent> events,
            byte @Nullable [] applied,
            @Nullable Snapshot snapshot) {
        CompletableFuture<Long> future = new CompletableFuture<>();
        if (StoreKeys.invalid(typeName, entityId, future)) {
            return future;
        }
        List<NewEvent> copies;
        try {
            Objects.requireNonNull(events, "events");
            EventJournal.checkAppend(typeName, entityId, expectedLastSequenceNr, events, snapshot);
            copies = new ArrayList<>(events.size());
            for (NewEvent e : events) {
                copies.add(new NewEvent(
                        e.eventType(), e.eventVersion(), e.payload().clone(), e.tags()));
            }
        } catch (IllegalArgumentException | NullPointerException e) {
            future.completeExceptionally(e);
            return future;
        }
        return writer.submit(
                new StoreOperation.Append(
                        typeName,
                        entityId,
                        shardId,
                        epoch,
                        expectedLastSequenceNr,
                        List.copyOf(copies),
                        applied == null ? null : applied.clone(),
                        snapshot == null
                                ? null
                                : new Snapshot(
                                        snapshot.sequenceNr(),
                                        snapshot.payload().clone()),
                        future,
                        System.nanoTime()),
                future);
    }

    /** See {@link EventJournal#recover}. */
    CompletableFuture<Recovery> recover(String typeName, String entityId) {
        CompletableFuture<Recovery> invalid = new CompletableFuture<>();
        if (StoreKeys.invalid(typeName, entityId, invalid)) {
            return invalid;
        }
        return tasks.onReader(
                "recovery of [" + typeName + "/" + entityId + "]",
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> d.journal().recover(c, typeName, entityId));
    }

    /** See {@link EventJournal#eventsOf}. */
    CompletableFuture<List<PersistedEvent>> eventsOf(
            String typeName, String entityId, long fromSequenceNr, int maxCount) {
        CompletableFuture<List<PersistedEvent>> invalid = new CompletableFuture<>();
        if (StoreKeys.invalid(typeName, entityId, invalid) || badPage(fromSequenceNr, maxCount, invalid)) {
            return invalid;
        }
        return tasks.onReader(
                "read of the events of [" + typeName + "/" + entityId + "] from " + fromSequenceNr,
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> d.journal().eventsOf(c, typeName, entityId, fromSequenceNr, maxCount));
    }

    /** See {@link EventJournal#eventsByTag}. */
    CompletableFuture<List<PersistedEvent>> eventsByTag(String tag, long afterOffset, int maxCount) {
        CompletableFuture<List<PersistedEvent>> invalid = new CompletableFuture<>();
        if (badPage(afterOffset, maxCount, invalid)) {
            return invalid;
        }
        Objects.requireNonNull(tag, "tag");
        return tasks.onReader(
                "read of the events tagged [" + tag + "] after offset " + afterOffset,
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> d.journal().eventsByTag(c, tag, afterOffset, maxCount));
    }

    /** See {@link EventJournal#eventsBySlice}. */
    CompletableFuture<List<PersistedEvent>> eventsBySlice(
            String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount) {
        CompletableFuture<List<PersistedEvent>> invalid = new CompletableFuture<>();
        if (StoreKeys.invalid(typeName, "", invalid) || badPage(afterOffset, maxCount, invalid)) {
            return invalid;
        }
        if (minShardId < 0 || maxShardId < minShardId) {
            invalid.completeExceptionally(new IllegalArgumentException("A slice of [" + typeName + "] from shard "
                    + minShardId + " to shard " + maxShardId + " is empty or negative"));
            return invalid;
        }
        return tasks.onReader(
                "read of the events of [" + typeName + "/shards " + minShardId + "-" + maxShardId + "] after offset "
                        + afterOffset,
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> d.journal().eventsBySlice(c, typeName, minShardId, maxShardId, afterOffset, maxCount));
    }

    /** See {@link EventJournal#lastGlobalOffset}. */
    CompletableFuture<Long> lastGlobalOffset() {
        return tasks.onReader(
                "read of the event journal's last offset",
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> d.journal().lastOffset(c));
    }

    private static boolean badPage(long from, int maxCount, CompletableFuture<?> future) {
        try {
            EventJournal.checkPage(from, maxCount);
            return false;
        } catch (IllegalArgumentException e) {
            future.completeExceptionally(e);
            return true;
        }
    }
}
