package dev.sharding.store;

import dev.sharding.store.LockAndUpdateFirst.LockedAndUpdated;
import dev.sharding.store.PortableSql.EntityKey;
import dev.sharding.store.PortableSql.ShardKey;
import dev.sharding.store.PortableSql.StateRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/**
 * PostgreSQL's one round trip at the start of a write batch ({@link LockAndUpdateFirst}): the transaction's time
 * limits, the shards' epochs locked and the existing rows updated, in statements the driver sends as one.
 */
final class PostgreSqlBatchUpdate implements LockAndUpdateFirst.RoundTrip {

    /** The statement that gives a transaction its time limits and plan settings. */
    private final String limitsSql;

    /** The statement that locks the epochs of a type's shards. */
    private final String lockEpochsSql;

    /** The statement that updates a type's existing rows. */
    private final String updateSql;

    /** The statement that updates the head rows of a type's appends. */
    private final String appendSql;

    /** The statements of the round trip by their shape: the common one, with one type, is made once. */
    private final java.util.concurrent.ConcurrentMap<Long, String> lockAndUpdateSql =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Creates the round trip over the store's tables.
     *
     * @param states the entity state table
     * @param epochs the shard epoch table
     * @param limitsSql the statement that gives a transaction its time limits, three parameters
     *     ({@link #bindLimits})
     */
    PostgreSqlBatchUpdate(String states, String epochs, String limitsSql) {
        this.limitsSql = limitsSql;
        this.lockEpochsSql = "SELECT shard_id, epoch FROM " + epochs
                + " WHERE type_name = ? AND shard_id = ANY(?::integer[]) ORDER BY shard_id FOR UPDATE NOWAIT";
        this.updateSql = "UPDATE " + states
                + " AS s SET state = u.state, version = s.version + u.writes, epoch = u.epoch,"
                + " applied_messages = u.applied, updated_at = CURRENT_TIMESTAMP"
                + " FROM unnest(?::text[], ?::bigint[], ?::bigint[], ?::bytea[], ?::bytea[])"
                + " AS u(entity_id, epoch, writes, state, applied)"
                + " WHERE s.type_name = ? AND s.entity_id = ANY(?::text[]) AND s.entity_id = u.entity_id"
                + " AND s.epoch <= u.epoch"
                + " RETURNING s.entity_id, s.version";
        this.appendSql = "UPDATE " + states
                + " AS s SET state = ''::bytea, version = u.last, epoch = u.epoch, applied_messages = u.applied,"
                + " updated_at = CURRENT_TIMESTAMP"
                + " FROM unnest(?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bytea[])"
                + " AS u(entity_id, epoch, expected, last, applied)"
                + " WHERE s.type_name = ? AND s.entity_id = ANY(?::text[]) AND s.entity_id = u.entity_id"
                + " AND s.epoch <= u.epoch AND s.version = u.expected"
                + " RETURNING s.entity_id, s.version";
    }

    /** Binds the three time limits of the limits statement from a parameter on; returns the next parameter. */
    static int bindLimits(PreparedStatement ps, int from, Duration limit) throws SQLException {
        String millis = String.valueOf(StoreTimeouts.millis(limit));
        for (int i = 0; i < 3; i++) {
            ps.setString(from + i, millis);
        }
        return from + 3;
    }

    /**
     * The statements, sent as one (the driver sends them in one round trip and the server runs them in order):
     * {@code set_config} of the time limits, then one {@code SELECT ... FOR UPDATE NOWAIT} of the epochs per type
     * (an epoch row held by another transaction fails the round trip at once, and the batch is done again on the
     * general path, which leaves that shard's writes for later: see {@link ShardEpochs#lockAll}), then one
     * {@code UPDATE ... FROM unnest(...)} per type with candidate rows, then one per type with appends, which also
     * requires each head row's last sequence number to be the one its appends expect. Each row is locked by the update itself and
     * its epoch condition is evaluated on its latest committed version. The ids are also given as
     * {@code entity_id = ANY(...)}, so that the rows are found through the primary key rather than by joining every
     * row of the type. The time limits come first, so that the lock waits of the statements after them are limited
     * too. The shards' epochs are left out of the update: looking each row's shard up in it made the plan a nested
     * loop, 2 to 3 us more per row, and twice the time of the update at 256 rows.
     */
    @Override
    public LockedAndUpdated lockAndUpdate(
            Connection connection,
            JdbcDialect dialect,
            java.util.SortedSet<ShardKey> shards,
            java.util.SortedMap<String, List<StateRow>> rowsByType,
            java.util.SortedMap<String, List<LockAndUpdateFirst.AppendRow>> appendsByType)
            throws SQLException {
        java.util.SortedMap<String, List<Integer>> shardsByType = new java.util.TreeMap<>();
        for (ShardKey shard : shards) {
            shardsByType
                    .computeIfAbsent(shard.typeName(), t -> new java.util.ArrayList<>())
                    .add(shard.shardId());
        }
        int typesLocked = shardsByType.size();
        int typesUpdated = rowsByType.size();
        int typesAppended = appendsByType.size();
        String sql = lockAndUpdateSql.computeIfAbsent(
                ((long) typesLocked << 42) | ((long) typesUpdated << 21) | typesAppended,
                k -> lockAndUpdateSql(typesLocked, typesUpdated, typesAppended));
        java.util.Map<ShardKey, Long> epochsByShard = new java.util.HashMap<>();
        java.util.Map<EntityKey, Long> versions = new java.util.HashMap<>();
        java.util.Map<EntityKey, Long> appended = new java.util.HashMap<>();
        try (PreparedStatement ps = dialect.prepare(connection, sql)) {
            int p = bindLimits(ps, 1, dialect.queryTimeout());
            for (java.util.Map.Entry<String, List<Integer>> e : shardsByType.entrySet()) {
                ps.setString(p++, e.getKey());
                ps.setArray(
                        p++, connection.createArrayOf("integer", e.getValue().toArray()));
            }
            for (java.util.Map.Entry<String, List<StateRow>> e : rowsByType.entrySet()) {
                p = bindUpdate(connection, ps, p, e.getKey(), e.getValue());
            }
            for (java.util.Map.Entry<String, List<LockAndUpdateFirst.AppendRow>> e : appendsByType.entrySet()) {
                p = bindAppends(connection, ps, p, e.getKey(), e.getValue());
            }
            ps.execute();
            boolean result = ps.getMoreResults(); // past the limits' row
            for (java.util.Map.Entry<String, List<Integer>> e : shardsByType.entrySet()) {
                try (ResultSet rs = resultOf(ps, result)) {
                    while (rs.next()) {
                        epochsByShard.put(new ShardKey(e.getKey(), rs.getInt(1)), rs.getLong(2));
                    }
                }
                for (int shardId : e.getValue()) {
                    epochsByShard.putIfAbsent(new ShardKey(e.getKey(), shardId), 0L);
                }
                result = ps.getMoreResults();
            }
            for (String typeName : rowsByType.keySet()) {
                try (ResultSet rs = resultOf(ps, result)) {
                    while (rs.next()) {
                        versions.put(new EntityKey(typeName, rs.getString(1)), rs.getLong(2));
                    }
                }
                result = ps.getMoreResults();
            }
            for (String typeName : appendsByType.keySet()) {
                try (ResultSet rs = resultOf(ps, result)) {
                    while (rs.next()) {
                        appended.put(new EntityKey(typeName, rs.getString(1)), rs.getLong(2));
                    }
                }
                result = ps.getMoreResults();
            }
        }
        return new LockedAndUpdated(epochsByShard, versions, appended);
    }

    private static ResultSet resultOf(PreparedStatement ps, boolean isResultSet) throws SQLException {
        ResultSet rs = isResultSet ? ps.getResultSet() : null;
        if (rs == null) {
            throw new SQLException("A statement of the store's batch returned no rows where it should have");
        }
        return rs;
    }

    private String lockAndUpdateSql(int typesLocked, int typesUpdated, int typesAppended) {
        List<String> statements = new java.util.ArrayList<>();
        statements.add(limitsSql);
        statements.addAll(Collections.nCopies(typesLocked, lockEpochsSql));
        statements.addAll(Collections.nCopies(typesUpdated, updateSql));
        statements.addAll(Collections.nCopies(typesAppended, appendSql));
        return String.join(";\n", statements);
    }

    /** Binds one type's update of {@link #updateSql} from a parameter on; returns the next parameter. */
    private static int bindUpdate(
            Connection connection, PreparedStatement ps, int from, String typeName, List<StateRow> rows)
            throws SQLException {
        int n = rows.size();
        String[] ids = new String[n];
        Long[] epochs = new Long[n];
        Long[] writes = new Long[n];
        byte[][] values = new byte[n][];
        byte[][] applied = new byte[n][];
        for (int i = 0; i < n; i++) {
            StateRow row = rows.get(i);
            ids[i] = row.entityId();
            epochs[i] = row.epoch();
            writes[i] = row.version();
            values[i] = row.state();
            applied[i] = row.applied();
        }
        java.sql.Array idArray = connection.createArrayOf("text", ids);
        int p = from;
        ps.setArray(p++, idArray);
        ps.setArray(p++, connection.createArrayOf("bigint", epochs));
        ps.setArray(p++, connection.createArrayOf("bigint", writes));
        ps.setArray(p++, connection.createArrayOf("bytea", values));
        ps.setArray(p++, connection.createArrayOf("bytea", applied));
        ps.setString(p++, typeName);
        ps.setArray(p++, idArray);
        return p;
    }

    /** Binds one type's update of {@link #appendSql} from a parameter on; returns the next parameter. */
    private static int bindAppends(
            Connection connection,
            PreparedStatement ps,
            int from,
            String typeName,
            List<LockAndUpdateFirst.AppendRow> rows)
            throws SQLException {
        int n = rows.size();
        String[] ids = new String[n];
        Long[] epochs = new Long[n];
        Long[] expected = new Long[n];
        Long[] last = new Long[n];
        byte[][] applied = new byte[n][];
        for (int i = 0; i < n; i++) {
            LockAndUpdateFirst.AppendRow row = rows.get(i);
            ids[i] = row.entityId();
            epochs[i] = row.epoch();
            expected[i] = row.expected();
            last[i] = row.last();
            applied[i] = row.applied();
        }
        java.sql.Array idArray = connection.createArrayOf("text", ids);
        int p = from;
        ps.setArray(p++, idArray);
        ps.setArray(p++, connection.createArrayOf("bigint", epochs));
        ps.setArray(p++, connection.createArrayOf("bigint", expected));
        ps.setArray(p++, connection.createArrayOf("bigint", last));
        ps.setArray(p++, connection.createArrayOf("bytea", applied));
        ps.setString(p++, typeName);
        ps.setArray(p++, idArray);
        return p;
    }

    /**
     * The update of one type's rows; its parameters: ids, epochs, writes, states, applied ids, type, ids.
     *
     * @return the statement
     */
    String updateSql() {
        return updateSql;
    }
}
