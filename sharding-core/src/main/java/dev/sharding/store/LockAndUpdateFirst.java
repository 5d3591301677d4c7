package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.store.PortableSql.EntityKey;
import dev.sharding.store.PortableSql.ShardKey;
import dev.sharding.store.PortableSql.StateRow;
import dev.sharding.store.ShardEpochs.LockedEpochs;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The write path of a database that locks the epochs of a batch's shards and updates many rows in one round trip
 * ({@link RoundTrip}): the keys that only see writes under one epoch are updated there, before any state row is locked,
 * each only where its row exists with an epoch not above the writes'; the general path ({@link StateReplay}) takes the
 * keys left. When a shard's epoch, returned by the same round trip, fences off a row it updated, or another transaction
 * holds a shard's epoch row ({@code NOWAIT}), the transaction is rolled back and the batch done again on the general
 * path ({@link WriteBatch#fallBack()}), which fences each key alone and leaves a held shard's writes for later. A batch
 * that writes no state takes the general path at once. The appends of an event-sourced entity ride in the same round
 * trip where they chain under one epoch: its head row is updated only where it exists, with an epoch not above theirs
 * and the last sequence number the first one expects; the keys it leaves (a new entity, a sequence conflict, a newer
 * epoch) go the general way, which appends or refuses them.
 */
final class LockAndUpdateFirst implements WritePath {

    /** The one round trip, in the dialect's SQL. */
    private final RoundTrip roundTrip;

    /**
     * Creates the path over a dialect's round trip.
     *
     * @param roundTrip the round trip
     */
    LockAndUpdateFirst(RoundTrip roundTrip) {
        this.roundTrip = roundTrip;
    }

    @Override
    public LockedEpochs write(
            WriteBatch batch,
            Connection connection,
            JdbcDialect dialect,
            TimeLimits.Start limits,
            SortedSet<ShardKey> shards,
            boolean writesStates)
            throws SQLException {
        if (!writesStates) {
            return LockThenReplay.INSTANCE.write(batch, connection, dialect, limits, shards, false);
        }
        // no shard is held back here: an epoch row another transaction holds fails the round trip
        SortedMap<EntityKey, List<Integer>> byKey = batch.statesByKey(Set.of());
        SortedMap<EntityKey, List<Integer>> rest = new TreeMap<>();
        SortedMap<String, List<StateRow>> rowsByType = new TreeMap<>();
        SortedMap<String, List<AppendRow>> appendsByType = new TreeMap<>();
        for (Map.Entry<EntityKey, List<Integer>> e : byKey.entrySet()) {
            @Nullable StateRow row = lastWrite(batch, e.getValue());
            @Nullable AppendRow appended = row == null ? chainedAppends(batch, e.getValue()) : null;
            if (row != null) {
                rowsByType
                        .computeIfAbsent(row.typeName(), t -> new ArrayList<>())
                        .add(row);
            } else if (appended != null) {
                appendsByType
                        .computeIfAbsent(e.getKey().typeName(), t -> new ArrayList<>())
                        .add(appended);
            } else {
                rest.put(e.getKey(), e.getValue());
            }
        }
        LockedAndUpdated done;
        try {
            done = roundTrip.lockAndUpdate(connection, dialect, shards, rowsByType, appendsByType);
        } catch (SQLException e) {
            if (!dialect.lockNotAvailable(e)) {
                throw e;
            }
            // another transaction holds a shard's epoch row (its previous owner, slow or cut off in a write):
            // the general path leaves that shard's writes for a later batch and commits the others now
            batch.fallBack();
            throw new SQLTransactionRollbackException(
                    "A shard's epoch row is held by another transaction; the batch is done again without waiting"
                            + " for it",
                    "40001",
                    e);
        }
        Map<ShardKey, Long> shardEpochs = done.epochs();
        java.util.Set<EntityKey> updated =
                new java.util.HashSet<>(done.versions().keySet());
        updated.addAll(done.appended().keySet());
        for (EntityKey key : updated) {
            for (int i : byKey.getOrDefault(key, List.of())) {
                StoreOperation.StateChange w = (StoreOperation.StateChange) batch.operation(i);
                if (shardEpochs.getOrDefault(w.shard(), 0L) > w.epoch()) {
                    // the shard was allocated again since these writes were made: decide every key again, the
                    // general way, in a new transaction (rare: only writes in flight when a shard moves)
                    batch.fallBack();
                    throw new SQLTransactionRollbackException(
                            "The epoch of the shard of " + key + " is above its writes'; the batch is done again",
                            "40001");
                }
            }
        }
        decideUpdated(batch, rowsByType, done.versions(), byKey, rest);
        decideAppended(batch, appendsByType, done.appended(), byKey, rest);
        if (!rest.isEmpty()) {
            batch.replay().write(connection, dialect, rest, shardEpochs);
        }
        return new LockedEpochs(shardEpochs, Set.of());
    }

    /**
     * Decides the outcomes of the candidate rows the round trip updated, from the versions it returned; the keys of
     * the others (their row was missing or had a newer epoch) go to the rest, for the general path.
     */
    private static void decideUpdated(
            WriteBatch batch,
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
                    StoreOperation.Write w = (StoreOperation.Write) batch.operation(indexes.get(k));
                    batch.outcomes()
                            .set(
                                    indexes.get(k),
                                    new Outcome.Stored(
                                            new StoredState(w.state(), first + k + 1, w.epoch(), w.applied())));
                }
            }
        }
    }

    /**
     * Decides the outcomes of the appends whose head rows the round trip updated; the keys of the others (a new entity,
     * another last sequence number, a newer epoch) go to the rest, where the general path appends or refuses them.
     */
    private static void decideAppended(
            WriteBatch batch,
            SortedMap<String, List<AppendRow>> appendsByType,
            Map<EntityKey, Long> appended,
            SortedMap<EntityKey, List<Integer>> byKey,
            SortedMap<EntityKey, List<Integer>> rest) {
        for (Map.Entry<String, List<AppendRow>> e : appendsByType.entrySet()) {
            for (AppendRow row : e.getValue()) {
                EntityKey key = new EntityKey(e.getKey(), row.entityId());
                List<Integer> indexes = byKey.getOrDefault(key, List.of());
                if (!appended.containsKey(key)) {
                    rest.put(key, indexes);
                    continue;
                }
                for (int i : indexes) {
                    StoreOperation.Append a = (StoreOperation.Append) batch.operation(i);
                    batch.outcomes().set(i, new Outcome.Appended(a.lastSequenceNr()));
                }
            }
        }
    }

    /**
     * The head row a key's appends leave, when they are all appends under one epoch, each expecting the last
     * sequence number the one before it leaves; {@code null} otherwise.
     */
    private static @Nullable AppendRow chainedAppends(WriteBatch batch, List<Integer> indexes) {
        StoreOperation.@Nullable Append first = null;
        StoreOperation.@Nullable Append last = null;
        for (int i : indexes) {
            if (!(batch.operation(i) instanceof StoreOperation.Append a)
                    || (last != null
                            && (last.epoch() != a.epoch() || last.lastSequenceNr() != a.expectedLastSequenceNr()))) {
                return null;
            }
            first = first == null ? a : first;
            last = a;
        }
        return first == null || last == null
                ? null
                : new AppendRow(
                        last.entityId(),
                        first.expectedLastSequenceNr(),
                        last.lastSequenceNr(),
                        last.epoch(),
                        last.applied());
    }

    /**
     * The head row of an event-sourced entity as a key's appends leave it, for the round trip's update.
     *
     * @param entityId the entity id
     * @param expected the last sequence number the row must have for the update to apply
     * @param last the last sequence number the appends leave
     * @param epoch their epoch
     * @param applied the applied message ids the last append stores, or null
     */
    record AppendRow(String entityId, long expected, long last, long epoch, byte @Nullable [] applied) {}

    /**
     * The row a key's writes end with, its version holding how many writes they are; {@code null} when any of its
     * operations is a delete or the writes carry different epochs.
     */
    private static @Nullable StateRow lastWrite(WriteBatch batch, List<Integer> indexes) {
        StoreOperation.@Nullable Write last = null;
        for (int i : indexes) {
            if (!(batch.operation(i) instanceof StoreOperation.Write w)
                    || (last != null && last.epoch() != w.epoch())) {
                return null;
            }
            last = w;
        }
        return last == null
                ? null
                : new StateRow(
                        last.typeName(), last.entityId(), last.state(), indexes.size(), last.epoch(), last.applied());
    }

    /** The one round trip of a dialect that can lock and update at once. */
    @FunctionalInterface
    interface RoundTrip {

        /**
         * Begins a write batch in one round trip, in this order: gives the transaction its time limits (as
         * {@link JdbcDialect#beginTransaction(Connection)} does); locks the epoch rows of the shards, by type and then
         * shard, as {@link ShardEpochs#lockAll} does but failing at once
         * ({@link PortableSql#lockNotAvailable}) when another transaction holds one; then, for each type, updates
         * those of its rows that exist with an epoch not above the row's write, adding each row's write count to its
         * version. Rows that do not exist or carry a newer epoch are left as they are. The shards' epochs are not
         * checked by the update: the caller must compare them with the writes' epochs and roll the transaction back
         * when one of the updated rows was fenced off by its shard.
         *
         * @param connection the batch's connection
         * @param dialect the database's dialect, whose statements carry the store's time limits
         * @param shards every shard the batch touches, sorted
         * @param rowsByType the candidate rows per type: one per id, sorted by id; each row's {@code version} holds
         *     how many writes of the batch it stands for
         * @param appendsByType the candidate head rows of appends per type, sorted by id: each updated only where it
         *     exists with an epoch not above the appends' and with the last sequence number they expect
         * @return the epoch of each shard (0 for those without one), the new version of each row updated and the head
         *     rows the appends updated
         * @throws SQLException on failure
         */
        LockedAndUpdated lockAndUpdate(
                Connection connection,
                JdbcDialect dialect,
                SortedSet<ShardKey> shards,
                SortedMap<String, List<StateRow>> rowsByType,
                SortedMap<String, List<AppendRow>> appendsByType)
                throws SQLException;
    }

    /**
     * What the {@link RoundTrip} found and did.
     *
     * @param epochs the epoch of each shard locked, 0 for those without one
     * @param versions the new version of each row updated
     * @param appended the new last sequence number of each head row the appends updated
     */
    record LockedAndUpdated(Map<ShardKey, Long> epochs, Map<EntityKey, Long> versions, Map<EntityKey, Long> appended) {}
}
