package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import dev.sharding.store.PortableSql.EntityKey;
import dev.sharding.store.PortableSql.RememberedId;
import dev.sharding.store.PortableSql.StateRow;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The operations of one group commit and what became of each.
 *
 * <h2>Algorithm</h2>
 * The epochs of the shards the batch touches are locked first, then the state rows ({@code SELECT ... FOR UPDATE},
 * in key order so that two nodes' batches cannot deadlock on existing rows). Where the database can lock the epochs
 * and update many rows in one round trip ({@link JdbcDialect#locksAndUpdatesAtOnce()}), the keys that only see writes
 * under one epoch are updated there, before any state row is locked, each only where its row exists with an epoch
 * not above the writes'; when a shard's epoch, returned by the same round trip, fences off a row it updated, the
 * transaction is rolled back and the batch done again without that round trip. The general path
 * ({@link StateReplay}) takes the keys left. It replays their operations per key, in queue order, against the locked version and epoch: a write or delete under
 * a lower epoch than the row's is refused alone; the others change the row, and only each key's final row is written
 * (one update, insert or delete per key). Rows that did not exist cannot be locked, so two nodes may insert the same new key at once: the loser's
 * insert is skipped, the row the winner committed is locked, and that key is replayed again, so the higher epoch wins
 * whichever committed first. Remembered entity changes are reduced to their final presence per id the same way.
 * Nothing is completed here: the caller commits, then calls {@link #complete()}, or {@link #fail} when anything went wrong.
 *
 * <h2>Shards another transaction holds</h2>
 * The epoch rows are locked without waiting for rows another transaction holds ({@code SKIP LOCKED}, or
 * {@code NOWAIT} in the one round trip, which then gives way to the general path). Such a shard's operations are
 * {@linkplain #deferred() left out} of the transaction, and the writer puts them first in its next batch: a shard whose
 * previous owner is slow, or cut off in the middle of a write, waits for it, and the node's other shards do not.
 */
final class WriteBatch {

    private final List<StoreOperation> operations;

    private final BatchOutcomes outcomes;

    /** Writes the keys the one round trip leaves, and all of them on the general path. */
    private final StateReplay generalPath;

    /**
     * Set when a shard's epoch, locked in the first round trip, turned out to fence off a row that round trip
     * updated: the transaction is rolled back and the batch done again without that round trip.
     */
    private boolean generalPathOnly;

    /**
     * Creates a batch; nothing runs yet.
     *
     * @param operations the operations, in queue order, without {@link StoreOperation.Stop}
     */
    WriteBatch(List<StoreOperation> operations) {
        this(operations, false);
    }

    /**
     * Creates a batch; nothing runs yet.
     *
     * @param operations the operations, in queue order, without {@link StoreOperation.Stop}
     * @param generalPathOnly whether to skip the one round trip of {@link JdbcDialect#lockAndUpdate}: when operations
     *     wait for a shard another transaction holds, that round trip would fail on it at once
     */
    WriteBatch(List<StoreOperation> operations, boolean generalPathOnly) {
        this.operations = operations;
        this.outcomes = new BatchOutcomes(operations);
        this.generalPath = new StateReplay(operations, outcomes);
        this.generalPathOnly = generalPathOnly;
    }

    /**
     * How many operations the batch holds.
     *
     * @return the count
     */
    int size() {
        return operations.size();
    }

    /**
     * Applies the batch in the connection's current transaction; the caller commits. May be called again, on a new
     * transaction, after a failure: every outcome is computed anew.
     *
     * @param connection a connection with auto-commit off
     * @param dialect the database's dialect
     * @param setLimits whether the transaction's time limits are still to be set
     *     ({@link JdbcDialect#beginTransaction(Connection)}); they are set before anything else runs. A batch that
     *     writes states on a dialect that locks and updates at once ({@link JdbcDialect#locksAndUpdatesAtOnce()})
     *     sets them in that round trip in every transaction
     * @throws SQLException when any statement fails; the transaction must be rolled back
     */
    void execute(Connection connection, JdbcDialect dialect, boolean setLimits) throws SQLException {
        outcomes.clear();
        java.util.SortedSet<PortableSql.ShardKey> shards = new TreeSet<>();
        boolean writesStates = false;
        int lastClear = -1;
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation op = operations.get(i);
            if (op instanceof StoreOperation.Clear) {
                lastClear = i;
            } else if (op instanceof StoreOperation.Remember r) {
                shards.add(new PortableSql.ShardKey(r.typeName(), r.shardId()));
            } else if (op instanceof StoreOperation.StateChange c) {
                shards.add(c.shard());
                writesStates = true;
            } else {
                throw new IllegalStateException("Not a batch operation: " + op.describe());
            }
        }
        boolean oneRoundTrip = dialect.locksAndUpdatesAtOnce() && !generalPathOnly && writesStates;
        if (setLimits && !oneRoundTrip) {
            dialect.beginTransaction(connection);
        }
        // the shards' epoch rows first, on every path: whoever holds them holds the state and remembered rows of
        // their shards too, so no statement after this one waits for another node's transaction
        @Nullable Map<PortableSql.ShardKey, Long> shardEpochs = null;
        Set<PortableSql.ShardKey> busy = Set.of();
        if (!oneRoundTrip && !shards.isEmpty()) {
            PortableSql.LockedEpochs locked = dialect.lockShardEpochs(connection, shards);
            shardEpochs = locked.epochs();
            busy = locked.busy();
        }
        SortedMap<EntityKey, List<Integer>> byKey = new TreeMap<>();
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation op = operations.get(i);
            if (op instanceof StoreOperation.StateChange c) {
                if (busy.contains(c.shard())) {
                    outcomes.set(i, Outcome.DEFERRED);
                } else {
                    byKey.computeIfAbsent(new EntityKey(c.typeName(), c.entityId()), k -> new ArrayList<>())
                            .add(i);
                }
            }
        }
        Map<PortableSql.ShardKey, Long> epochs = writeStates(connection, dialect, byKey, shards, shardEpochs);
        Map<RememberedId, Boolean> rememberedChanges = new LinkedHashMap<>();
        int firstClear = -1;
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation op = operations.get(i);
            if (op instanceof StoreOperation.Remember r) {
                PortableSql.ShardKey shard = new PortableSql.ShardKey(r.typeName(), r.shardId());
                if (i > lastClear && busy.contains(shard)) {
                    // before a clear of the batch it is cleared anyway; after the last one it waits for its shard
                    outcomes.set(i, Outcome.DEFERRED);
                    continue;
                }
                long fence = epochs.getOrDefault(shard, 0L);
                if (fence > r.epoch()) {
                    // a stale owner's late flush: the shard's new owner keeps its set
                    outcomes.set(
                            i,
                            new Outcome.Refused(
                                    new StaleEpochException(r.typeName(), "shard " + r.shardId(), r.epoch(), fence)));
                    continue;
                }
                r.started().forEach(id -> rememberedChanges.put(new RememberedId(r.typeName(), r.shardId(), id), true));
                r.stopped()
                        .forEach(id -> rememberedChanges.put(new RememberedId(r.typeName(), r.shardId(), id), false));
                outcomes.set(i, Outcome.DONE);
            } else if (op instanceof StoreOperation.Clear) {
                // a clear: everything remembered before it is gone after it; a later clear of the batch finds nothing
                rememberedChanges.clear();
                firstClear = firstClear < 0 ? i : firstClear;
                outcomes.set(i, new Outcome.Cleared(0));
            }
        }
        if (firstClear >= 0) {
            outcomes.set(firstClear, new Outcome.Cleared(dialect.clearShardingData(connection)));
        }
        List<RememberedId> forget = new ArrayList<>();
        List<RememberedId> remember = new ArrayList<>();
        rememberedChanges.forEach((id, present) -> (present ? remember : forget).add(id));
        dialect.forgetIds(connection, forget);
        dialect.rememberIds(connection, remember);
    }

    /**
     * Writes the states; {@code lockedEpochs} is null when the dialect is to lock the epochs and update the rows it
     * can in one round trip ({@link JdbcDialect#lockAndUpdate}). Returns the epochs of the batch's shards, locked.
     */
    private Map<PortableSql.ShardKey, Long> writeStates(
            Connection connection,
            JdbcDialect dialect,
            SortedMap<EntityKey, List<Integer>> byKey,
            java.util.SortedSet<PortableSql.ShardKey> shards,
            @Nullable Map<PortableSql.ShardKey, Long> lockedEpochs)
            throws SQLException {
        if (byKey.isEmpty()) {
            return lockedEpochs == null ? Map.of() : lockedEpochs;
        }
        Map<PortableSql.ShardKey, Long> shardEpochs;
        if (lockedEpochs == null) {
            SortedMap<EntityKey, List<Integer>> rest = new TreeMap<>();
            SortedMap<String, List<StateRow>> rowsByType = new TreeMap<>();
            for (Map.Entry<EntityKey, List<Integer>> e : byKey.entrySet()) {
                @Nullable StateRow row = lastWrite(e.getValue());
                if (row == null) {
                    rest.put(e.getKey(), e.getValue());
                } else {
                    rowsByType
                            .computeIfAbsent(row.typeName(), t -> new ArrayList<>())
                            .add(row);
                }
            }
            JdbcDialect.LockedAndUpdated done;
            try {
                done = dialect.lockAndUpdate(connection, shards, rowsByType);
            } catch (SQLException e) {
                if (!dialect.lockNotAvailable(e)) {
                    throw e;
                }
                // another transaction holds a shard's epoch row (its previous owner, slow or cut off in a write):
                // the general path leaves that shard's writes for a later batch and commits the others now
                generalPathOnly = true;
                throw new SQLTransactionRollbackException(
                        "A shard's epoch row is held by another transaction; the batch is done again without waiting"
                                + " for it",
                        "40001",
                        e);
            }
            shardEpochs = done.epochs();
            for (EntityKey key : done.versions().keySet()) {
                for (int i : byKey.getOrDefault(key, List.of())) {
                    StoreOperation.Write w = (StoreOperation.Write) operations.get(i);
                    if (shardEpochs.getOrDefault(w.shard(), 0L) > w.epoch()) {
                        // the shard was allocated again since these writes were made: decide every key again, the
                        // general way, in a new transaction (rare: only writes in flight when a shard moves)
                        generalPathOnly = true;
                        throw new SQLTransactionRollbackException(
                                "The epoch of the shard of " + key + " is above its writes'; the batch is done again",
                                "40001");
                    }
                }
            }
            decideUpdated(rowsByType, done.versions(), byKey, rest);
            byKey = rest;
            if (byKey.isEmpty()) {
                return shardEpochs;
            }
        } else {
            shardEpochs = lockedEpochs;
        }
        generalPath.write(connection, dialect, byKey, shardEpochs);
        return shardEpochs;
    }

    /**
     * Decides the outcomes of the candidate rows {@link JdbcDialect#lockAndUpdate} updated, from the versions it
     * returned; the keys of the others (their row was missing or had a newer epoch) go to the rest, for the general
     * path.
     */
    private void decideUpdated(
            SortedMap<String, List<StateRow>> rowsByType,
            Map<EntityKey, Long> versions,
            SortedMap<EntityKey, List<Integer>> byKey,
            SortedMap<EntityKey, List<Integer>> rest) {
        for (List<StateRow> rows : rowsByType.values()) {
            for (StateRow row : rows) {
                EntityKey key = new EntityKey(row.typeName(), row.entityId());
                List<Integer> indexes = byKey.getOrDefault(key, List.of());
                Long version = versions.get(key);
                if (version == null) {
                    rest.put(key, indexes);
                    continue;
                }
                long first = version - indexes.size();
                for (int k = 0; k < indexes.size(); k++) {
                    StoreOperation.Write w = (StoreOperation.Write) operations.get(indexes.get(k));
                    outcomes.set(
                            indexes.get(k),
                            new Outcome.Stored(new StoredState(w.state(), first + k + 1, w.epoch(), w.applied())));
                }
            }
        }
    }

    /**
     * The row a key's writes end with, its version holding how many writes they are; {@code null} when any of its
     * operations is a delete or the writes carry different epochs.
     */
    private @Nullable StateRow lastWrite(List<Integer> indexes) {
        StoreOperation.@Nullable Write last = null;
        for (int i : indexes) {
            if (!(operations.get(i) instanceof StoreOperation.Write w) || (last != null && last.epoch() != w.epoch())) {
                return null;
            }
            last = w;
        }
        return last == null
                ? null
                : new StateRow(
                        last.typeName(), last.entityId(), last.state(), indexes.size(), last.epoch(), last.applied());
    }

    /**
     * The operations the committed transaction left for a later batch, in queue order: another transaction held the
     * epoch rows of their shards ({@link PortableSql#lockShardEpochs}). Every operation of such a shard in the batch
     * is among them, so that a later batch applies each key's operations in their order. Call after the commit, from
     * the thread that executed the batch.
     *
     * @return the operations, none of them completed
     */
    List<StoreOperation> deferred() {
        return outcomes.deferred();
    }

    /**
     * Completes every future with its outcome, but for the {@link #deferred()} operations; call after the commit
     * succeeded.
     */
    void complete() {
        outcomes.complete();
    }

    /**
     * One state row the batch's transaction wrote, as it left it and as it was before, to tell afterwards whether a
     * commit that got no answer went through ({@link CommitCheck}).
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param versionBefore the row's version before the transaction; 0 when there was no row
     * @param version the row's version as the transaction left it
     * @param epoch the epoch it wrote under
     * @param state the state it wrote
     */
    record Witness(String typeName, String entityId, long versionBefore, long version, long epoch, byte[] state) {}

    /**
     * A row that tells whether the last transaction of this batch was committed: the first key whose operations in
     * it are all writes that were accepted, under one epoch. Call after a commit failed, before the batch runs again.
     *
     * @return the witness, or null when no key qualifies (the batch only deletes, or was refused)
     */
    @Nullable
    Witness witness() {
        return outcomes.witness();
    }

    /**
     * Fails every future: nothing of the batch was applied, or, when the commit got no answer
     * ({@link JdbcTransactions#outcomeUnknown}), its operations may have been applied but for the {@link #deferred()}
     * ones.
     *
     * @param reason what went wrong, for the message
     * @param cause the failure
     */
    void fail(String reason, @Nullable Throwable cause) {
        outcomes.fail(reason, cause);
    }
}
