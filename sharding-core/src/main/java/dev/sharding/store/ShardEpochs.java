package dev.sharding.store;

import dev.sharding.store.PortableSql.ShardKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The shard epoch rows of a {@link JdbcShardingStore}, in the SQL every database accepts: locked for a write batch
 * ({@link #lockAll}) or a new epoch ({@link #lockBriefly}), and read ({@link #current}). Every method runs in the
 * caller's transaction on the caller's connection, with the statements and time limits of its dialect.
 */
final class ShardEpochs {

    private final PortableSql sql;

    /**
     * Creates the epoch SQL of a dialect.
     *
     * @param sql the dialect, whose statements carry its time limits
     */
    ShardEpochs(PortableSql sql) {
        this.sql = sql;
    }

    /**
     * Reads the current epochs of shards and locks their rows until the transaction ends, so that no epoch can be
     * taken between a write's fence check and its commit. Rows another transaction holds are skipped rather than
     * waited for ({@code SKIP LOCKED}): they belong to a shard whose writes this batch must leave for a later one
     * (its previous owner, slow or cut off in the middle of a transaction, may hold them for seconds), while the
     * writes of every other shard go on. One statement per type (and per {@link PortableSql#LOCK_CHUNK} shards), each
     * locking its rows in shard order, as {@link PortableSql#lockStates} does for state rows; when rows are missing
     * from the result, one more statement per type tells the rows that exist (held by another transaction) from those
     * that do not.
     *
     * @param connection the batch's connection
     * @param shards the shards, sorted
     * @return the epoch of each shard locked or without a row (0 for those), and the shards held by another
     *     transaction
     * @throws SQLException on failure
     */
    LockedEpochs lockAll(Connection connection, SortedSet<ShardKey> shards) throws SQLException {
        Map<ShardKey, Long> epochsByShard = new HashMap<>();
        selectEpochs(connection, shards, " FOR UPDATE SKIP LOCKED", epochsByShard);
        if (epochsByShard.size() == shards.size()) {
            return new LockedEpochs(epochsByShard, Set.of());
        }
        SortedSet<ShardKey> missing = new TreeSet<>(shards);
        missing.removeAll(epochsByShard.keySet());
        Map<ShardKey, Long> existing = new HashMap<>();
        // a plain read sees the committed row without waiting for the transaction that holds it
        selectEpochs(connection, missing, "", existing);
        for (ShardKey shard : missing) {
            if (!existing.containsKey(shard)) {
                epochsByShard.put(shard, 0L);
            }
        }
        return new LockedEpochs(epochsByShard, existing.keySet());
    }

    /**
     * What {@link #lockAll} found.
     *
     * @param epochs the epoch of each shard whose row is locked by this transaction, 0 for shards without a row
     * @param busy the shards whose rows another transaction holds: neither locked nor read
     */
    record LockedEpochs(Map<ShardKey, Long> epochs, Set<ShardKey> busy) {}

    private void selectEpochs(
            Connection connection, SortedSet<ShardKey> shards, String lockClause, Map<ShardKey, Long> epochsByShard)
            throws SQLException {
        List<ShardKey> all = new ArrayList<>(shards);
        // one statement per type and chunk rather than one per shard: each statement is a round trip
        for (int from = 0; from < all.size(); ) {
            String typeName = all.get(from).typeName();
            int to = from;
            while (to < all.size()
                    && to - from < PortableSql.LOCK_CHUNK
                    && all.get(to).typeName().equals(typeName)) {
                to++;
            }
            List<ShardKey> chunk = all.subList(from, to);
            int size = KeyLocking.padded(chunk.size());
            String query = "SELECT shard_id, epoch FROM " + sql.epochs + " WHERE "
                    + sql.keyLocking().condition("shard_id", size) + " ORDER BY shard_id" + lockClause;
            try (PreparedStatement ps = sql.prepare(connection, query)) {
                sql.keyLocking()
                        .bind(
                                ps,
                                typeName,
                                size,
                                (s, p, i) -> s.setInt(
                                        p,
                                        chunk.get(Math.min(i, chunk.size() - 1)).shardId()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        epochsByShard.put(new ShardKey(typeName, rs.getInt(1)), rs.getLong(2));
                    }
                }
            }
            from = to;
        }
    }

    /**
     * The longest a new epoch waits for its shard's row: enough for another node's write batch or epoch to commit,
     * far less than a transaction of a slow node.
     */
    static final Duration EPOCH_LOCK_WAIT = Duration.ofSeconds(1);

    /**
     * Locks a shard's epoch row, if it has one, waiting at most {@link #EPOCH_LOCK_WAIT} (or half the query timeout, if
     * shorter) for another transaction that holds it. A new epoch is taken when the coordinator allocates the shard
     * again, and a transaction that holds the row for longer is most likely a write of its previous owner, slow or cut
     * off in the middle of it. Waiting for it would hold one of the store's few read threads for up to the query
     * timeout per shard; failing soon lets the coordinator try again on its next round, and every other shard's
     * allocation go on.
     *
     * @param connection a connection in the epoch's transaction
     * @param typeName the entity type
     * @param shardId the shard
     * @throws SQLException a {@link ShardRowBusyException} when another transaction held the row all that time
     */
    void lockBriefly(Connection connection, String typeName, int shardId) throws SQLException {
        // under the query timeout, which also limits the whole statement on some databases
        Duration half = sql.queryTimeout().dividedBy(2);
        Duration wait = EPOCH_LOCK_WAIT.compareTo(half) < 0 ? EPOCH_LOCK_WAIT : half;
        sql.limitLockWaits(connection, wait);
        try (PreparedStatement ps = sql.prepare(
                connection, "SELECT epoch FROM " + sql.epochs + " WHERE type_name = ? AND shard_id = ? FOR UPDATE")) {
            ps.setString(1, typeName);
            ps.setInt(2, shardId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // locked
                }
            }
        } catch (SQLException e) {
            if (sql.lockNotAvailable(e)) {
                throw new ShardRowBusyException(
                        "The epoch of [" + typeName + "/shard " + shardId + "] is held by another transaction for more"
                                + " than " + StoreTimeouts.format(wait)
                                + " (the shard's previous owner, slow or cut off"
                                + " in the middle of a write?); a new epoch is taken once it ends",
                        e);
            }
            throw e;
        }
    }

    /**
     * Sets the epochs of shards whose rows this transaction has locked ({@link #lockAll}).
     *
     * @param connection the connection of the transaction that holds the rows
     * @param epochs the new epoch of each shard
     * @throws SQLException on failure, or when a row is missing
     */
    void setAll(Connection connection, Map<ShardKey, Long> epochs) throws SQLException {
        if (epochs.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = sql.prepare(
                connection, "UPDATE " + sql.epochs + " SET epoch = ? WHERE type_name = ? AND shard_id = ?")) {
            for (Map.Entry<ShardKey, Long> e : epochs.entrySet()) {
                ps.setLong(1, e.getValue());
                ps.setString(2, e.getKey().typeName());
                ps.setInt(3, e.getKey().shardId());
                ps.addBatch();
            }
            PortableSql.requireOneRowEach(ps.executeBatch(), "shard epoch update");
        }
    }

    /**
     * The current epochs of a type's shards.
     *
     * @param connection the connection
     * @param typeName the entity type
     * @return the epoch of every shard of the type that has one
     * @throws SQLException on failure
     */
    Map<Integer, Long> current(Connection connection, String typeName) throws SQLException {
        try (PreparedStatement ps =
                sql.prepare(connection, "SELECT shard_id, epoch FROM " + sql.epochs + " WHERE type_name = ?")) {
            ps.setString(1, typeName);
            Map<Integer, Long> result = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    result.put(rs.getInt(1), rs.getLong(2));
                }
            }
            return result;
        }
    }

    /** A shard's epoch row was held by another transaction, and the statement would not wait for it. */
    static final class ShardRowBusyException extends SQLException {

        private static final long serialVersionUID = 1L;

        ShardRowBusyException(String message, SQLException cause) {
            super(message, cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }
}
