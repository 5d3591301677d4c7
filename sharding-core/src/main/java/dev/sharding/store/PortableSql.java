package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of a {@link JdbcShardingStore} that is the same on every database it supports: the table names, statements
 * with the query timeout, and the reads and writes of entity state, epochs and remembered entities that both products
 * accept. {@link JdbcDialect} adds what differs. Every method runs in the caller's transaction on the caller's
 * connection.
 */
abstract class PortableSql {

    /** Most ids locked by one statement; statements are padded to powers of two to keep few distinct shapes. */
    static final int LOCK_CHUNK = 128;

    /** The entity state table. */
    protected final String states;
    /** The shard epoch table. */
    protected final String epochs;
    /** The remembered entity table. */
    protected final String remembered;
    /** The coordinator lease table: one row per cluster name. */
    protected final String leases;
    /** The table of the store's id: one row. */
    protected final String storeTable;

    /** The table prefix the public schema scripts are written with. */
    static final String DEFAULT_PREFIX = "sharding_";

    /** The validated table prefix. */
    protected final String prefix;

    private final Duration queryTimeout;

    private final int queryTimeoutSeconds;

    /** How the product's lock statements name their keys. */
    private final KeyLocking keyLocking;

    /** Where the product keeps the time limits of a transaction. */
    private final TimeLimits timeLimits;

    /** The reads and locks of the shard epoch rows. */
    private final ShardEpochs shardEpochs;

    /** The event journal's statements. */
    private final JournalSql journal;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     * @param queryTimeout the longest a statement may run, lock waits included
     * @param keyLocking how the product's lock statements name their keys
     * @param timeLimits where the product keeps the time limits of a transaction
     */
    protected PortableSql(String prefix, Duration queryTimeout, KeyLocking keyLocking, TimeLimits timeLimits) {
        this.prefix = prefix;
        this.states = prefix + "entity_state";
        this.epochs = prefix + "shard_epoch";
        this.remembered = prefix + "remembered_entity";
        this.leases = prefix + "coordinator_lease";
        this.storeTable = prefix + "store";
        this.queryTimeout = queryTimeout;
        this.queryTimeoutSeconds = StoreTimeouts.seconds(queryTimeout);
        this.keyLocking = keyLocking;
        this.timeLimits = timeLimits;
        this.shardEpochs = new ShardEpochs(this);
        this.journal = new JournalSql(this, prefix);
    }

    /** {@return the statements of the event journal, for this product} */
    final JournalSql journal() {
        return journal;
    }

    /** {@return the reads and locks of the shard epoch rows, for this product} */
    final ShardEpochs shardEpochs() {
        return shardEpochs;
    }

    /**
     * Limits the lock waits of the statements that follow in the current transaction.
     *
     * @param connection a connection in a transaction
     * @param limit the longest a statement may wait for a row lock
     * @throws SQLException on failure
     */
    abstract void limitLockWaits(Connection connection, java.time.Duration limit) throws SQLException;

    /**
     * Whether a statement failed because a row lock it asked for without waiting ({@code NOWAIT}) was held by
     * another transaction, or because a lock wait timed out ({@link #limitLockWaits}).
     *
     * @param e the failure
     * @return true for a lock that was not available
     */
    abstract boolean lockNotAvailable(SQLException e);

    /**
     * A shard of a type.
     *
     * @param typeName the type
     * @param shardId the shard
     */
    record ShardKey(String typeName, int shardId) implements Comparable<ShardKey> {
        @Override
        public int compareTo(ShardKey o) {
            int c = typeName.compareTo(o.typeName);
            return c != 0 ? c : Integer.compare(shardId, o.shardId);
        }
    }

    /**
     * Prepares a statement with the query timeout, unless the server limits statements itself
     * ({@link TimeLimits#TRANSACTION}).
     *
     * @param connection the connection
     * @param sql the statement
     * @return the prepared statement
     * @throws SQLException on failure
     */
    final PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        return timeLimits.limit(connection.prepareStatement(sql), queryTimeoutSeconds);
    }

    /**
     * Creates a statement with the query timeout, unless the server limits statements itself.
     *
     * @param connection the connection
     * @return the statement
     * @throws SQLException on failure
     */
    final Statement statement(Connection connection) throws SQLException {
        return timeLimits.limit(connection.createStatement(), queryTimeoutSeconds);
    }

    /**
     * Where the product keeps the time limits of a transaction.
     *
     * @return the product's time limits
     */
    final TimeLimits timeLimits() {
        return timeLimits;
    }

    /**
     * How the product's lock statements ({@link #lockStates}, {@link ShardEpochs#lockAll}) name their keys.
     *
     * @return the product's key locking
     */
    final KeyLocking keyLocking() {
        return keyLocking;
    }

    /**
     * The longest a statement may run, lock waits included.
     *
     * @return the query timeout
     */
    final Duration queryTimeout() {
        return queryTimeout;
    }

    @Nullable
    StoredState read(Connection connection, String typeName, String entityId) throws SQLException {
        try (PreparedStatement ps = prepare(
                connection,
                "SELECT state, version, epoch, applied_messages FROM " + states
                        + " WHERE type_name = ? AND entity_id = ?")) {
            ps.setString(1, typeName);
            ps.setString(2, entityId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new StoredState(rs.getBytes(1), rs.getLong(2), rs.getLong(3), rs.getBytes(4)) : null;
            }
        }
    }

    /**
     * Locks the existing state rows of some ids of one type until the transaction ends, in the ids' order.
     *
     * @param connection the batch's connection
     * @param typeName the entity type
     * @param ids the ids, sorted
     * @return version and epoch of the rows found, by id
     * @throws SQLException on failure
     */
    Map<String, Locked> lockStates(Connection connection, String typeName, List<String> ids) throws SQLException {
        Map<String, Locked> found = new HashMap<>();
        keyLocking.selectIds(
                this,
                connection,
                typeName,
                ids,
                condition -> "SELECT entity_id, version, epoch FROM " + states + " WHERE " + condition
                        + " ORDER BY entity_id FOR UPDATE",
                rs -> found.put(rs.getString(1), new Locked(rs.getLong(2), rs.getLong(3))));
        return found;
    }

    void updateStates(Connection connection, List<StateRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = prepare(
                connection,
                "UPDATE " + states
                        + " SET state = ?, version = ?, epoch = ?, applied_messages = ?, updated_at = CURRENT_TIMESTAMP"
                        + " WHERE type_name = ? AND entity_id = ?")) {
            for (StateRow row : rows) {
                ps.setBytes(1, row.state());
                ps.setLong(2, row.version());
                ps.setLong(3, row.epoch());
                ps.setBytes(4, row.applied());
                ps.setString(5, row.typeName());
                ps.setString(6, row.entityId());
                ps.addBatch();
            }
            requireOneRowEach(ps.executeBatch(), "state update");
        }
    }

    void deleteStates(Connection connection, List<EntityKey> keys) throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        try (PreparedStatement ps =
                prepare(connection, "DELETE FROM " + states + " WHERE type_name = ? AND entity_id = ?")) {
            for (EntityKey key : keys) {
                ps.setString(1, key.typeName());
                ps.setString(2, key.entityId());
                ps.addBatch();
            }
            requireOneRowEach(ps.executeBatch(), "state delete");
        }
    }

    static void requireOneRowEach(int[] counts, String what) throws SQLException {
        for (int count : counts) {
            if (count != 1 && count != Statement.SUCCESS_NO_INFO) {
                // the row was locked by this transaction, so only a broken database gets here
                throw new SQLException("A " + what + " changed " + count + " rows instead of the locked one");
            }
        }
    }

    void forgetIds(Connection connection, List<RememberedId> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = prepare(
                connection, "DELETE FROM " + remembered + " WHERE type_name = ? AND shard_id = ? AND entity_id = ?")) {
            for (RememberedId id : ids) {
                bind(ps, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * Binds type, shard and entity id to the first three parameters.
     *
     * @param ps the statement
     * @param id the remembered id
     * @throws SQLException on failure
     */
    static void bind(PreparedStatement ps, RememberedId id) throws SQLException {
        ps.setString(1, id.typeName());
        ps.setInt(2, id.shardId());
        ps.setString(3, id.entityId());
    }

    Set<String> remembered(Connection connection, String typeName, int shardId) throws SQLException {
        try (PreparedStatement ps =
                prepare(connection, "SELECT entity_id FROM " + remembered + " WHERE type_name = ? AND shard_id = ?")) {
            ps.setString(1, typeName);
            ps.setInt(2, shardId);
            Set<String> ids = new TreeSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
            return ids;
        }
    }

    /**
     * The database server's clock ({@code CURRENT_TIMESTAMP}), which every node reads alike.
     *
     * @param connection the connection
     * @return the time, in milliseconds since the epoch
     * @throws SQLException on failure
     */
    long currentTimeMillis(Connection connection) throws SQLException {
        try (Statement st = connection.createStatement();
                ResultSet rs = st.executeQuery("SELECT CURRENT_TIMESTAMP")) {
            if (!rs.next()) {
                throw new SQLException("SELECT CURRENT_TIMESTAMP returned no row");
            }
            return rs.getTimestamp(1).getTime();
        }
    }

    Set<Integer> shardsWithRemembered(Connection connection, String typeName) throws SQLException {
        try (PreparedStatement ps =
                prepare(connection, "SELECT DISTINCT shard_id FROM " + remembered + " WHERE type_name = ?")) {
            ps.setString(1, typeName);
            Set<Integer> shards = new TreeSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    shards.add(rs.getInt(1));
                }
            }
            return shards;
        }
    }

    /**
     * Deletes every remembered entity. The shard epochs stay: the state rows carry the epochs of their last writes,
     * and a shard epoch that started again at 1 would make the next owner's writes to them stale.
     *
     * @param connection the batch's connection
     * @return how many ids were deleted
     * @throws SQLException on failure
     */
    long clearShardingData(Connection connection) throws SQLException {
        try (Statement st = statement(connection)) {
            return st.executeUpdate("DELETE FROM " + remembered);
        }
    }

    /**
     * The primary key of a state row, ordered by type and then id.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     */
    record EntityKey(String typeName, String entityId) implements Comparable<EntityKey> {

        @Override
        public int compareTo(EntityKey other) {
            int byType = typeName.compareTo(other.typeName);
            return byType != 0 ? byType : entityId.compareTo(other.entityId);
        }
    }

    /**
     * A state row as locked: what the batch needs to decide on the writes to it.
     *
     * @param version its version
     * @param epoch the epoch of its last write
     */
    record Locked(long version, long epoch) {}

    /**
     * A state row to insert or update.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param state the encoded state
     * @param applied the encoded ids of the messages the entity applied lately, or null
     * @param version the new version
     * @param epoch the new epoch
     */
    record StateRow(
            String typeName, String entityId, byte[] state, long version, long epoch, byte @Nullable [] applied) {}

    /**
     * A remembered entity.
     *
     * @param typeName the entity type
     * @param shardId its shard
     * @param entityId its id
     */
    record RememberedId(String typeName, int shardId, String entityId) {}
}
