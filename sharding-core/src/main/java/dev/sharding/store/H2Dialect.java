package dev.sharding.store;

import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * H2 (2.x, any compatibility mode). H2 rolls back only the failed statement, not the transaction, so a duplicate key
 * on insert is caught and reported per row; epochs are incremented through a data change delta table. H2's lock
 * timeout and query timeout are settings of the session (the connection), set again by every transaction and
 * statement of the store; H2 has no limit on a session idle in a transaction.
 */
final class H2Dialect extends JdbcDialect {

    private static final String DUPLICATE_KEY = "23505";

    private static final int MAX_EPOCH_TRIES = 10;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     */
    H2Dialect(String prefix, Duration queryTimeout) {
        super(prefix, queryTimeout);
    }

    @Override
    void beginTransaction(Connection connection, Duration limit) throws SQLException {
        try (Statement st = statement(connection)) {
            st.execute("SET LOCK_TIMEOUT " + StoreTimeouts.millis(limit));
        }
    }

    @Override
    boolean limitsLastForTheSession() {
        return true; // LOCK_TIMEOUT is a setting of the session
    }

    /**
     * Locks the cluster's lease row and decides on it. CURRENT_TIMESTAMP is the same throughout an H2 transaction
     * (its start, after the request was made), so the expiry compared and the expiry written are on one clock
     * reading, and a lease granted lasts exactly {@code duration} from it. Two nodes taking the first lease of a
     * cluster at once both find no row; the primary key lets one insert, and the other finds its row at the next
     * round.
     */
    @Override
    CoordinatorLease acquireLease(
            Connection connection, String clusterName, String holderId, String holderName, Duration duration)
            throws SQLException {
        long micros = duration.toNanos() / 1000;
        try (PreparedStatement lock = prepare(
                        connection,
                        "SELECT holder_id, holder_name,"
                                + " DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at) FROM " + leases
                                + " WHERE cluster_name = ? FOR UPDATE");
                PreparedStatement take = prepare(
                        connection,
                        "UPDATE " + leases + " SET holder_id = ?,"
                                + " holder_name = ?, expires_at = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)"
                                + " WHERE cluster_name = ?");
                PreparedStatement insert = prepare(
                        connection,
                        "INSERT INTO " + leases
                                + " (cluster_name, holder_id, holder_name, expires_at)"
                                + " VALUES (?, ?, ?, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP))")) {
            lock.setString(1, clusterName);
            for (int attempt = 0; attempt < MAX_EPOCH_TRIES; attempt++) {
                try (ResultSet rs = lock.executeQuery()) {
                    if (rs.next()) {
                        if (!holderId.equals(rs.getString(1)) && rs.getLong(3) > 0) {
                            return refused(rs);
                        }
                        take.setString(1, holderId);
                        take.setString(2, holderName);
                        take.setLong(3, micros);
                        take.setString(4, clusterName);
                        take.executeUpdate();
                        return new CoordinatorLease(true, holderId, holderName, micros(micros));
                    }
                }
                insert.setString(1, clusterName);
                insert.setString(2, holderId);
                insert.setString(3, holderName);
                insert.setLong(4, micros);
                if (insertUnlessDuplicate(insert)) {
                    return new CoordinatorLease(true, holderId, holderName, micros(micros));
                }
                // another node inserted the cluster's first lease meanwhile: decide on that one
            }
        }
        throw new SQLException("Could not take the coordinator lease of cluster [" + clusterName + "] in "
                + MAX_EPOCH_TRIES + " tries: its row kept appearing and disappearing");
    }

    @Override
    void createStoreId(Connection connection, String id) throws SQLException {
        try (PreparedStatement ps = prepare(
                connection,
                "INSERT INTO " + storeTable + " (id, store_id, created_at) VALUES (1, ?, CURRENT_TIMESTAMP)")) {
            ps.setString(1, id);
            insertUnlessDuplicate(ps);
        }
    }

    @Override
    String name() {
        return "h2";
    }

    @Override
    boolean lockByRowValues() {
        // H2 uses the primary key for a list of row values, but for "type_name = ? AND entity_id IN (...)" only
        // its first column: every row of the type would be read
        return true;
    }

    @Override
    boolean[] insertStates(Connection connection, List<StateRow> rows) throws SQLException {
        boolean[] inserted = new boolean[rows.size()];
        if (rows.isEmpty()) {
            return inserted;
        }
        try (PreparedStatement ps = prepare(
                connection,
                "INSERT INTO " + states
                        + " (type_name, entity_id, state, version, epoch, applied_messages, updated_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)")) {
            for (int i = 0; i < rows.size(); i++) {
                StateRow row = rows.get(i);
                ps.setString(1, row.typeName());
                ps.setString(2, row.entityId());
                ps.setBytes(3, row.state());
                ps.setLong(4, row.version());
                ps.setLong(5, row.epoch());
                ps.setBytes(6, row.applied());
                inserted[i] = insertUnlessDuplicate(ps);
            }
        }
        return inserted;
    }

    @Override
    void rememberIds(Connection connection, List<RememberedId> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = prepare(
                connection, "INSERT INTO " + remembered + " (type_name, shard_id, entity_id) VALUES (?, ?, ?)")) {
            for (RememberedId id : ids) {
                bind(ps, id);
                insertUnlessDuplicate(ps);
            }
        }
    }

    @Override
    long nextEpoch(Connection connection, String typeName, int shardId) throws SQLException {
        try (PreparedStatement increment = prepare(
                        connection,
                        "SELECT epoch FROM FINAL TABLE (UPDATE " + epochs
                                + " SET epoch = epoch + 1 WHERE type_name = ? AND shard_id = ?)");
                PreparedStatement insert = prepare(
                        connection, "INSERT INTO " + epochs + " (type_name, shard_id, epoch) VALUES (?, ?, 1)")) {
            increment.setString(1, typeName);
            increment.setInt(2, shardId);
            insert.setString(1, typeName);
            insert.setInt(2, shardId);
            for (int attempt = 0; attempt < MAX_EPOCH_TRIES; attempt++) {
                try (ResultSet rs = increment.executeQuery()) {
                    if (rs.next()) {
                        return rs.getLong(1);
                    }
                }
                if (insertUnlessDuplicate(insert)) {
                    return 1;
                }
                // another node inserted the shard's first epoch meanwhile: increment that one
            }
        }
        throw new SQLException("Could not increment the epoch of [" + typeName + "/shard " + shardId + "] in "
                + MAX_EPOCH_TRIES + " tries: its row kept appearing and disappearing");
    }

    private static boolean insertUnlessDuplicate(PreparedStatement ps) throws SQLException {
        try {
            ps.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (DUPLICATE_KEY.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }
}
