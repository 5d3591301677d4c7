package dev.sharding.store;

import dev.sharding.spi.StaleEpochException;
import dev.sharding.store.PortableSql.EntityKey;
import dev.sharding.store.PortableSql.RememberedId;
import java.sql.Connection;
import java.sql.SQLException;
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
 * in key order so that two nodes' batches cannot deadlock on existing rows), in the way of the dialect's
 * {@link WritePath}: where the database can lock the epochs and update many rows in one round trip
 * ({@link LockAndUpdateFirst}), the keys that only see writes under one epoch are updated there first. The general path
 * ({@link StateReplay}) takes the keys left. It replays their operations per key, in queue order, against the locked
 * version and epoch: a write or delete under a lower epoch than the row's is refused alone; the others change the row,
 * and only each key's final row is written (one update, insert or delete per key). Rows that did not exist cannot be
 * locked, so two nodes may insert the same new key at once: the loser's insert is skipped, the row the winner
 * committed is locked, and that key is replayed again, so the higher epoch wins whichever committed first. Remembered
 * entity changes are reduced to their final presence per id the same way. Nothing is completed here: the caller
 * commits, then calls {@link #complete()}, or {@link #fail} when anything went wrong.
 *
 * <h2>Shards another transaction holds</h2>
 * The epoch rows are locked without waiting for rows another transaction holds ({@code SKIP LOCKED}, or
 * {@code NOWAIT} in the one round trip, which then gives way to the general path). Such a shard's operations are
 * {@linkplain #deferred() left out} of the transaction, and the writer puts them first in its next batch: a shard whose
 * previous owner is slow, or cut off in the middle of a write, waits for it, and the node's other shards do not.
 */
final class WriteBatch {

    private final List<StoreOperation.Batched> operations;

    private final BatchOutcomes outcomes;

    /** Writes the keys the one round trip leaves, and all of them on the general path. */
    private final StateReplay generalPath;

    /**
     * The path the batch takes whatever its dialect's ({@link JdbcDialect#writePath()}), or null for the dialect's:
     * the general path when operations wait for a shard another transaction holds, or when the dialect's path gave way
     * to it ({@link #fallBack()}).
     */
    private @Nullable WritePath forced;

    /**
     * Creates a batch; nothing runs yet.
     *
     * @param operations the operations, in queue order
     */
    WriteBatch(List<StoreOperation.Batched> operations) {
        this(operations, false);
    }

    /**
     * Creates a batch; nothing runs yet.
     *
     * @param operations the operations, in queue order
     * @param shardsHeld whether operations wait for a shard another transaction holds: the batch then takes the
     *     general path ({@link LockThenReplay}), since the one round trip of {@link LockAndUpdateFirst} would fail on
     *     it at once
     */
    WriteBatch(List<StoreOperation.Batched> operations, boolean shardsHeld) {
        this.operations = operations;
        this.outcomes = new BatchOutcomes(operations);
        this.generalPath = new StateReplay(operations, outcomes);
        this.forced = shardsHeld ? LockThenReplay.INSTANCE : null;
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
     * @param limits sets the transaction's time limits before anything else runs, where they are not set already
     *     ({@link TimeLimits#onConnection}); a path that sets them in its own first round trip skips it
     * @throws SQLException when any statement fails; the transaction must be rolled back
     */
    void execute(Connection connection, JdbcDialect dialect, TimeLimits.Start limits) throws SQLException {
        outcomes.clear();
        java.util.SortedSet<PortableSql.ShardKey> shards = new TreeSet<>();
        boolean writesStates = false;
        int lastClear = -1;
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation.Batched op = operations.get(i);
            if (op instanceof StoreOperation.StateChange c) {
                shards.add(c.shard());
                writesStates = true;
            } else if (op instanceof StoreOperation.Remember r) {
                shards.add(new PortableSql.ShardKey(r.typeName(), r.shardId()));
            } else {
                lastClear = i; // the one other change: a clear
            }
        }
        WritePath path = forced != null ? forced : dialect.writePath();
        ShardEpochs.LockedEpochs locked = path.write(this, connection, dialect, limits, shards, writesStates);
        Map<PortableSql.ShardKey, Long> epochs = locked.epochs();
        Set<PortableSql.ShardKey> busy = locked.busy();
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
        // last: the events take the journal's offset counter, which stays locked until the commit
        JournalWrites.write(connection, dialect, operations, outcomes);
    }

    /**
     * The indexes of the batch's writes and deletes by key, in queue order, but for those of shards another
     * transaction holds, whose outcome is recorded as {@link Outcome#DEFERRED}.
     *
     * @param busy the shards another transaction holds
     * @return the indexes by key
     */
    SortedMap<EntityKey, List<Integer>> statesByKey(Set<PortableSql.ShardKey> busy) {
        SortedMap<EntityKey, List<Integer>> byKey = new TreeMap<>();
        for (int i = 0; i < operations.size(); i++) {
            if (operations.get(i) instanceof StoreOperation.StateChange c) {
                if (busy.contains(c.shard())) {
                    outcomes.set(i, Outcome.DEFERRED);
                } else {
                    byKey.computeIfAbsent(new EntityKey(c.typeName(), c.entityId()), k -> new ArrayList<>())
                            .add(i);
                }
            }
        }
        return byKey;
    }

    /**
     * The operation at an index.
     *
     * @param index its index in the batch
     * @return the operation
     */
    StoreOperation.Batched operation(int index) {
        return operations.get(index);
    }

    /** @return where the outcomes of the batch's operations are recorded */
    BatchOutcomes outcomes() {
        return outcomes;
    }

    /** @return the general path, which writes the keys a {@link WritePath} gives it */
    StateReplay replay() {
        return generalPath;
    }

    /**
     * Has the batch done again on the general path ({@link LockThenReplay}) from its next transaction on: the first
     * round trip of {@link LockAndUpdateFirst} found a shard's epoch above writes it updated, or a shard's epoch row
     * held by another transaction; the path then rolls the transaction back.
     */
    void fallBack() {
        forced = LockThenReplay.INSTANCE;
    }

    /**
     * The operations the committed transaction left for a later batch, in queue order: another transaction held the
     * epoch rows of their shards ({@link ShardEpochs#lockAll}). Every operation of such a shard in the batch
     * is among them, so that a later batch applies each key's operations in their order. Call after the commit, from
     * the thread that executed the batch.
     *
     * @return the operations, none of them completed
     */
    List<StoreOperation.Batched> deferred() {
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
     * it are all writes that were accepted, under one epoch; failing that, the first entity whose operations are all
     * appends that were accepted, under one epoch, with at least one event (its head row's version, the last sequence
     * number, moved). Call after a commit failed, before the batch runs again.
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
