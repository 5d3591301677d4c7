package dev.sharding.store;

import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.Snapshot;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The optional capabilities of {@link JdbcShardingStore} beside state writes, each method handed to the part that
 * does it: the event journal ({@link JdbcJournal}, over the store's writer and read threads), the projection offsets
 * ({@link JdbcProjectionOffsets}), and the coordinator lease and the store id ({@link JdbcLeases}).
 */
abstract sealed class JdbcStoreCapabilities implements ShardingStore permits JdbcShardingStore {

    /** {@return the store's coordinator lease and id} */
    abstract JdbcLeases leases();

    /** {@return the store's journal} */
    abstract JdbcJournal journal();

    /** {@return the store's projection offsets} */
    abstract JdbcProjectionOffsets offsets();

    /**
     * {@inheritDoc}
     *
     * <p>Queued for the writer thread with the state writes, and committed in the same transactions: the entity's
     * state row (its journal head) is locked and fenced as a write's, and the events take their global offsets last,
     * just before the commit (see {@code JournalWrites} for why a reader paging by offset never skips one).
     */
    @Override
    public CompletableFuture<Long> appendEvents(
            String typeName,
            String entityId,
            int shardId,
            long epoch,
            long expectedLastSequenceNr,
            List<NewEvent> events,
            byte @Nullable [] applied,
            @Nullable Snapshot snapshot) {
        return journal().append(typeName, entityId, shardId, epoch, expectedLastSequenceNr, events, applied, snapshot);
    }

    @Override
    public CompletableFuture<Recovery> recover(String typeName, String entityId) {
        return journal().recover(typeName, entityId);
    }

    @Override
    public CompletableFuture<List<PersistedEvent>> eventsOf(
            String typeName, String entityId, long fromSequenceNr, int maxCount) {
        return journal().eventsOf(typeName, entityId, fromSequenceNr, maxCount);
    }

    @Override
    public CompletableFuture<List<PersistedEvent>> eventsByTag(String tag, long afterOffset, int maxCount) {
        return journal().eventsByTag(tag, afterOffset, maxCount);
    }

    @Override
    public CompletableFuture<List<PersistedEvent>> eventsBySlice(
            String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount) {
        return journal().eventsBySlice(typeName, minShardId, maxShardId, afterOffset, maxCount);
    }

    @Override
    public CompletableFuture<Long> lastGlobalOffset() {
        return journal().lastGlobalOffset();
    }

    @Override
    public CompletableFuture<Long> projectionOffset(String projection, int slice) {
        return offsets().offset(projection, slice);
    }

    @Override
    public CompletableFuture<Boolean> saveProjectionOffset(String projection, int slice, long expected, long offset) {
        return offsets().save(projection, slice, expected, offset);
    }

    /**
     * Moves a projection's slice from one offset to the next and runs a handler's work in the same transaction, on
     * this store's database: both are committed, or neither. For exactly-once projections
     * ({@link dev.sharding.Projection#ofJdbc}).
     *
     * @param projection the projection's name
     * @param slice the slice
     * @param expected the offset the caller read
     * @param offset the new offset
     * @param work what the handler writes, with the transaction's connection (not to be committed or closed)
     * @return whether it was committed; false when the slice was no longer at {@code expected} and the work did not
     *     run; failed as the work or the database failed, with nothing committed
     */
    public CompletableFuture<Boolean> inProjectionTransaction(
            String projection, int slice, long expected, long offset, ProjectionWork work) {
        return offsets().inTransaction(projection, slice, expected, offset, work::run);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Runs on the lease thread, on a connection of its own, in a transaction whose lock and statement timeouts are
     * half the lease duration (at most the query timeout); the future fails if no answer came within twice that.
     *
     * @throws IllegalArgumentException (in the future) when a name is longer than {@value JdbcShardingStore#MAX_LEASE_NAME_LENGTH}
     *     characters or the duration is not positive
     */
    @Override
    public CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
            String clusterName, String holderId, String holderName, Duration duration) {
        return leases().acquire(clusterName, holderId, holderName, duration);
    }

    @Override
    public CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        return leases().release(clusterName, holderId);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The id is a random UUID, kept in the table {@code <prefix>store}: the first node to ask creates it; nodes
     * asking at the same time all end up with the one that was committed.
     */
    @Override
    public CompletableFuture<Optional<String>> storeId() {
        return leases().storeId();
    }
}
