package dev.sharding.store;

import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * H2 (2.x, any compatibility mode). H2 rolls back only the failed statement, not the transaction, so a duplicate key
 * on insert is caught and reported per row; epochs are incremented through a data change delta table. H2's lock
 * timeout and query timeout are settings of the session (the connection), set again by every transaction and
 * statement of the store; H2 has no limit on a session idle in a transaction.
 *
 * <p>Durability: H2's write delay ({@code WRITE_DELAY}, 500 ms unless set) lets a commit return before its changes
 * are written to the file, and a process killed meanwhile loses them. It is a setting of the whole database that
 * any connection can change: {@code SET WRITE_DELAY n} (admin rights required), or a URL with {@code WRITE_DELAY=n},
 * which H2 applies at every connection opened with it, also through another process's server ({@code AUTO_SERVER}).
 * H2 writes a value set into the file but does not take it from there: the process that opens the file (the next
 * node to serve it, after a crash) starts with its URL's value, or 500 ms. So the store looks at the write delay
 * on the connections it borrows for transactions that write, with auto-commit off (so that H2 fails the connection
 * rather than reconnect it to another server unchecked), at most every 100 ms and always after a failed call, and
 * sets it to 0 when it is not; a user without admin rights cannot, and then the store refuses to write.
 */
final class H2Dialect extends JdbcDialect {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final String WRITE_DELAY_SQL =
            "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'";

    /**
     * How long a write delay found 0 is taken for granted: reading it costs a query that builds every setting's row
     * (about 150 us, ten times a trivial query), which a writer borrowing its connection for every transaction would
     * pay each time. No server can take the file over within this time of a check that reached the one before it (the
     * file lock of a dead server takes seconds to go stale; a restarted server takes longer), and
     * {@link #mayHaveMoved()} ends it early.
     */
    private static final long RECHECK_AFTER_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);

    /** When the write delay was last found 0 ({@link System#nanoTime()}). */
    private volatile long verifiedAt = System.nanoTime() - RECHECK_AFTER_NANOS;

    /** H2's error code for a statement that needs admin rights. */
    private static final int ADMIN_RIGHTS_REQUIRED = 90040;

    private static final String DUPLICATE_KEY = "23505";

    private static final int MAX_EPOCH_TRIES = 10;

    /** H2's error code for a row lock not granted in time (or at once, under NOWAIT). */
    private static final int LOCK_TIMEOUT = 50200;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     */
    H2Dialect(String prefix, Duration queryTimeout, boolean allowNonDurableCommits) {
        // LOCK_TIMEOUT is a setting of the session; H2 finds rows by the whole primary key only for row values
        super(prefix, queryTimeout, allowNonDurableCommits, KeyLocking.ROW_VALUES, TimeLimits.SESSION);
    }

    /** H2 cannot lock and update many rows in one round trip: every batch takes the general path. */
    @Override
    WritePath writePath() {
        return LockThenReplay.INSTANCE;
    }

    @Override
    void checkDurability(Connection connection) throws SQLException {
        ensureDurableCommits(connection);
    }

    /**
     * Reads the database's write delay and sets it to 0 when it is not. One query when it is 0 already (a local
     * call on the node that serves the file, one round trip on the others).
     */
    @Override
    void ensureDurableCommits(Connection connection) throws SQLException {
        if (allowNonDurableCommits || System.nanoTime() - verifiedAt < RECHECK_AFTER_NANOS) {
            return;
        }
        int delay;
        try {
            delay = writeDelay(connection);
        } catch (SQLException | RuntimeException e) {
            verifiedAt = System.nanoTime() - RECHECK_AFTER_NANOS;
            throw e;
        }
        if (delay == 0) {
            verifiedAt = System.nanoTime();
            return;
        }
        verifiedAt = System.nanoTime() - RECHECK_AFTER_NANOS;
        try (Statement st = statement(connection)) {
            st.execute("SET WRITE_DELAY 0");
        } catch (SQLException e) {
            if (e.getErrorCode() != ADMIN_RIGHTS_REQUIRED) {
                throw e;
            }
            throw new NonDurableCommitsException(
                    "WRITE_DELAY",
                    String.valueOf(delay),
                    "The H2 database's write delay is " + delay + " ms (WRITE_DELAY=" + delay + "): a commit returns"
                            + " before it is written to the file, so a kill of the process that holds the file loses"
                            + " the writes acknowledged in the last " + delay + " ms. The sharding store could not set"
                            + " it to 0: its database user ["
                            + connection.getMetaData().getUserName() + "] has no"
                            + " admin rights.",
                    "Connect as a user with admin rights (the store then sets it itself); or have the file opened by an"
                            + " admin whose URL has WRITE_DELAY=0 (the process that opens the file takes the write delay"
                            + " from its URL, 500 ms if it has none; a user without admin rights cannot put it in"
                            + " a URL); or set sharding.store.allow-non-durable-commits=true to accept losing"
                            + " acknowledged writes.");
        }
        verifiedAt = System.nanoTime();
        LOG.warn(
                "The H2 database's write delay was {} ms (WRITE_DELAY): its commits returned before they were written"
                        + " to the file, and a kill of the process holding the file would have lost up to {} ms of"
                        + " acknowledged writes. The sharding store set it to 0 for the whole database, and sets it"
                        + " again whenever it finds it otherwise: each process that opens the file starts with the"
                        + " write delay of its URL (500 ms when the URL has none), and a URL with WRITE_DELAY sets it"
                        + " at every connection opened with it. Add WRITE_DELAY=0 to every URL of this database to"
                        + " have it so from the start",
                delay,
                delay);
    }

    /**
     * The larger of the write delay in force and the one kept in the file: H2 lists both when they differ (a file
     * whose kept 0 was not taken at its opening), and {@code SET} changes both.
     */
    /** The database may be served by another process now: look at the write delay on the next connection. */
    @Override
    void mayHaveMoved() {
        verifiedAt = System.nanoTime() - RECHECK_AFTER_NANOS;
    }

    private int writeDelay(Connection connection) throws SQLException {
        try (Statement st = statement(connection);
                ResultSet rs = st.executeQuery(WRITE_DELAY_SQL)) {
            int delay = -1;
            while (rs.next()) {
                delay = Math.max(delay, Integer.parseInt(rs.getString(1).strip()));
            }
            if (delay < 0) {
                throw new SQLException("H2 did not report its WRITE_DELAY setting");
            }
            return delay;
        } catch (NumberFormatException e) {
            throw new SQLException("H2 reported an unreadable WRITE_DELAY setting", e);
        }
    }

    @Override
    void beginTransaction(Connection connection, Duration limit) throws SQLException {
        try (Statement st = statement(connection)) {
            st.execute("SET LOCK_TIMEOUT " + StoreTimeouts.millis(limit));
        }
    }

    @Override
    String leaseMicrosLeft() {
        return "DATEDIFF(MICROSECOND, CURRENT_TIMESTAMP, expires_at)";
    }

    /**
     * Refuses the request while another cluster's lease is live ({@link #heldByAnotherCluster}, which also makes the
     * requests of all clusters take turns), then locks the cluster's lease row and decides on it. CURRENT_TIMESTAMP is the same throughout an H2 transaction
     * (its start, after the request was made), so the expiry compared and the expiry written are on one clock
     * reading, and a lease granted lasts exactly {@code duration} from it. Two nodes taking the first lease of a
     * cluster at once both find no row; the primary key lets one insert, and the other finds its row at the next
     * round.
     */
    @Override
    CoordinatorLease acquireLease(
            Connection connection, String clusterName, String holderId, String holderName, Duration duration)
            throws SQLException {
        CoordinatorLease other = heldByAnotherCluster(connection, clusterName);
        if (other != null) {
            return other;
        }
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
    void limitLockWaits(Connection connection, Duration limit) throws SQLException {
        // a setting of the session: the next transaction on the connection sets its own (beginTransaction)
        try (Statement st = statement(connection)) {
            st.execute("SET LOCK_TIMEOUT " + StoreTimeouts.millis(limit));
        }
    }

    @Override
    boolean lockNotAvailable(SQLException e) {
        // LOCK_TIMEOUT_1: H2 reports a lock it may not wait for (NOWAIT) as a lock wait that timed out
        return e.getErrorCode() == LOCK_TIMEOUT;
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
        shardEpochs().lockBriefly(connection, typeName, shardId);
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

    /**
     * Increments the counter through a data change delta table; when it has no row yet, inserts it, and when another
     * transaction inserted it meanwhile (the insert waited for it, then found the key taken), increments that one.
     */
    @Override
    long takeOffsets(Connection connection, int count) throws SQLException {
        JournalSql journal = journal();
        try (PreparedStatement increment = prepare(
                        connection,
                        "SELECT last_offset FROM FINAL TABLE (UPDATE " + journal.offsets
                                + " SET last_offset = last_offset + ? WHERE id = 1)");
                PreparedStatement insert =
                        prepare(connection, "INSERT INTO " + journal.offsets + " (id, last_offset) VALUES (1, ?)")) {
            increment.setLong(1, count);
            insert.setLong(1, count);
            for (int attempt = 0; attempt < MAX_EPOCH_TRIES; attempt++) {
                try (ResultSet rs = increment.executeQuery()) {
                    if (rs.next()) {
                        return rs.getLong(1);
                    }
                }
                if (insertUnlessDuplicate(insert)) {
                    return count;
                }
            }
        }
        throw new SQLException("Could not take offsets of the event journal in " + MAX_EPOCH_TRIES
                + " tries: its counter row kept appearing and disappearing");
    }

    @Override
    void upsertSnapshots(Connection connection, List<StoreOperation.Append> appends) throws SQLException {
        try (PreparedStatement ps = prepare(
                connection,
                "MERGE INTO " + journal().snapshots
                        + " (type_name, entity_id, sequence_nr, payload, epoch, written_at) KEY (type_name, entity_id)"
                        + " VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP)")) {
            for (StoreOperation.Append a : appends) {
                JournalSql.bindSnapshot(ps, a);
                ps.addBatch();
            }
            ps.executeBatch();
        }
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
