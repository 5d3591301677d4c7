package dev.sharding.store;

import dev.sharding.spi.SequenceConflictException;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.StaleEpochException;
import dev.sharding.store.PortableSql.EntityKey;
import dev.sharding.store.PortableSql.Locked;
import dev.sharding.store.PortableSql.StateRow;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The general path of a {@link WriteBatch}: it locks the state rows of the keys ({@code SELECT ... FOR UPDATE}, in
 * key order), replays each key's operations against its row and records their outcomes, and writes only each key's
 * final row (one update, insert or delete per key). A key whose row another node inserted since it was found missing
 * loses its insert: that row is locked and the key replayed again, so the higher epoch wins whichever committed first.
 *
 * <p>An append of events is replayed as a write of the entity's row (the journal's head: an empty state, the last
 * sequence number as version, the applied message ids) that is also refused alone when the append expected another
 * last sequence number ({@link SequenceConflictException}). Because the row is locked, two appends to one entity
 * cannot both pass that check; the events themselves are written at the end of the transaction
 * ({@link JournalWrites}).
 */
final class StateReplay {

    /** The category this path logged under as part of {@link WriteBatch}, kept. */
    private static final Logger LOG = LoggerFactory.getLogger(WriteBatch.class);

    /** The state of an event-sourced entity's row: its journal holds what it is. */
    private static final byte[] NO_STATE = new byte[0];

    /** How often one key may lose an insert race within one transaction before the batch gives up. */
    private static final int MAX_INSERT_ROUNDS = 5;

    private final List<StoreOperation.Batched> operations;

    private final BatchOutcomes outcomes;

    /**
     * Creates the general path of a batch.
     *
     * @param operations the batch's operations, in queue order
     * @param outcomes where their outcomes are recorded
     */
    StateReplay(List<StoreOperation.Batched> operations, BatchOutcomes outcomes) {
        this.operations = operations;
        this.outcomes = outcomes;
    }

    /**
     * Writes the states of the given keys in the connection's current transaction, once the epochs of their shards
     * are locked.
     *
     * @param connection a connection with auto-commit off
     * @param dialect the database's dialect
     * @param byKey the indexes of each key's writes and deletes, in queue order
     * @param shardEpochs the locked epochs of their shards
     * @throws SQLException when a statement fails, or keys lost too many insert races; the transaction must be rolled
     *     back
     */
    void write(
            Connection connection,
            JdbcDialect dialect,
            SortedMap<EntityKey, List<Integer>> byKey,
            Map<PortableSql.ShardKey, Long> shardEpochs)
            throws SQLException {
        Map<EntityKey, Locked> locked = lock(connection, dialect, byKey.keySet());
        Map<EntityKey, Long> journalHeads = journalHeads(connection, dialect, byKey, locked);
        List<EntityKey> pending = new ArrayList<>(byKey.keySet());
        for (int round = 0; !pending.isEmpty(); round++) {
            if (round == MAX_INSERT_ROUNDS) {
                throw new SQLTransactionRollbackException(
                        "Lost " + MAX_INSERT_ROUNDS + " insert races in a row on " + pending.get(0)
                                + "; the batch will be retried",
                        "40001");
            }
            List<StateRow> updates = new ArrayList<>();
            List<StateRow> inserts = new ArrayList<>();
            List<EntityKey> deletes = new ArrayList<>();
            for (EntityKey key : pending) {
                @Nullable Locked before = locked.get(key);
                List<Integer> indexes = byKey.getOrDefault(key, List.of());
                @Nullable
                StateRow after = replay(key, indexes, before, shardEpochs, journalHeads.getOrDefault(key, 0L));
                if (!outcomes.anyAccepted(indexes)) {
                    continue; // every operation refused: the row stays as it is
                }
                if (before == null) {
                    if (after != null) {
                        inserts.add(after);
                    }
                } else if (after == null) {
                    deletes.add(key);
                } else {
                    updates.add(after);
                }
            }
            dialect.updateStates(connection, updates);
            dialect.deleteStates(connection, deletes);
            boolean[] inserted = dialect.insertStates(connection, inserts);
            pending = new ArrayList<>();
            for (int i = 0; i < inserted.length; i++) {
                if (!inserted[i]) {
                    pending.add(new EntityKey(
                            inserts.get(i).typeName(), inserts.get(i).entityId()));
                }
            }
            if (!pending.isEmpty()) {
                // another node committed these rows since they were found missing: decide again against them
                LOG.debug("{} state rows were inserted by another node meanwhile; deciding again", pending.size());
                pending.forEach(locked::remove);
                locked.putAll(lock(connection, dialect, pending));
            }
        }
    }

    /** The write or delete at an index grouped by key: only those are. */
    private StoreOperation.StateChange change(int index) {
        return (StoreOperation.StateChange) operations.get(index);
    }

    /**
     * Replays one key's operations against its row and records their outcomes.
     *
     * @return the row to store, or {@code null} for none, as when every operation was refused (which the caller tells
     *     by {@link BatchOutcomes#anyAccepted})
     */
    private @Nullable StateRow replay(
            EntityKey key,
            List<Integer> indexes,
            @Nullable Locked before,
            Map<PortableSql.ShardKey, Long> shardEpochs,
            long journalHead) {
        boolean exists = before != null;
        long version = before == null ? 0 : before.version();
        long epoch = before == null ? 0 : before.epoch();
        byte @Nullable [] state = null;
        byte @Nullable [] applied = null;
        // the journal's last sequence number where the entity has no row: its row was deleted, its events were not
        long journalLast = before == null ? journalHead : before.version();
        for (int i : indexes) {
            StoreOperation.StateChange op = change(i);
            long opEpoch = op.epoch();
            long fence = Math.max(exists ? epoch : 0, shardEpochs.getOrDefault(op.shard(), 0L));
            if (fence > opEpoch) {
                // the row was written under a newer epoch, or the shard has been allocated since
                outcomes.set(
                        i,
                        new Outcome.Refused(new StaleEpochException(key.typeName(), key.entityId(), opEpoch, fence)));
                continue;
            }
            if (op instanceof StoreOperation.Append a) {
                long last = exists ? version : journalLast;
                if (a.expectedLastSequenceNr() != last) {
                    outcomes.set(
                            i,
                            new Outcome.Refused(new SequenceConflictException(
                                    key.typeName(), key.entityId(), a.expectedLastSequenceNr(), last)));
                    continue;
                }
                version = a.lastSequenceNr();
                journalLast = version;
                epoch = opEpoch;
                state = NO_STATE;
                applied = a.applied();
                exists = true;
                outcomes.set(i, new Outcome.Appended(version));
            } else if (op instanceof StoreOperation.Write w) {
                version = exists ? version + 1 : 1;
                epoch = opEpoch;
                state = w.state();
                applied = w.applied();
                exists = true;
                outcomes.set(i, new Outcome.Stored(new StoredState(state, version, epoch, applied)));
            } else {
                exists = false;
                state = null;
                applied = null;
                outcomes.set(i, Outcome.DONE);
            }
        }
        return exists && state != null
                ? new StateRow(key.typeName(), key.entityId(), state, version, epoch, applied)
                : null;
    }

    /**
     * The last sequence numbers in the journal of the keys that append and have no state row (a new entity, or one
     * whose row was deleted): one statement per type, only when there are such keys.
     */
    private Map<EntityKey, Long> journalHeads(
            Connection connection,
            JdbcDialect dialect,
            SortedMap<EntityKey, List<Integer>> byKey,
            Map<EntityKey, Locked> locked)
            throws SQLException {
        SortedMap<String, List<String>> idsByType = new TreeMap<>();
        for (Map.Entry<EntityKey, List<Integer>> e : byKey.entrySet()) {
            if (!locked.containsKey(e.getKey()) && appends(e.getValue())) {
                idsByType
                        .computeIfAbsent(e.getKey().typeName(), t -> new ArrayList<>())
                        .add(e.getKey().entityId());
            }
        }
        if (idsByType.isEmpty()) {
            return Map.of();
        }
        Map<EntityKey, Long> heads = new java.util.HashMap<>();
        for (Map.Entry<String, List<String>> e : idsByType.entrySet()) {
            dialect.journal()
                    .lastSequenceNrs(connection, e.getKey(), e.getValue())
                    .forEach((id, last) -> heads.put(new EntityKey(e.getKey(), id), last));
        }
        return heads;
    }

    private boolean appends(List<Integer> indexes) {
        for (int i : indexes) {
            if (operations.get(i) instanceof StoreOperation.Append) {
                return true;
            }
        }
        return false;
    }

    private static Map<EntityKey, Locked> lock(Connection connection, JdbcDialect dialect, Iterable<EntityKey> keys)
            throws SQLException {
        SortedMap<String, TreeSet<String>> idsByType = new TreeMap<>();
        keys.forEach(k ->
                idsByType.computeIfAbsent(k.typeName(), t -> new TreeSet<>()).add(k.entityId()));
        Map<EntityKey, Locked> locked = new LinkedHashMap<>();
        for (Map.Entry<String, TreeSet<String>> e : idsByType.entrySet()) {
            dialect.lockStates(connection, e.getKey(), new ArrayList<>(e.getValue()))
                    .forEach((id, row) -> locked.put(new EntityKey(e.getKey(), id), row));
        }
        return locked;
    }
}
