package dev.sharding.store;

import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL. A failed statement aborts the whole transaction there, so conflicts are never raised but skipped with
 * {@code ON CONFLICT DO NOTHING}; inserted rows are named by {@code RETURNING}, whatever the driver's batch
 * rewriting; epochs are incremented and the coordinator lease taken by one upsert each. Time limits are set per
 * transaction ({@code set_config(..., true)}, as {@code SET LOCAL}), so that they never outlive the store's own
 * transactions on a connection the application shares.
 */
final class PostgreSqlDialect extends JdbcDialect {

    /** Most rows in one multi-row insert: 5 parameters each stays far below the protocol's 32767. */
    private static final int INSERT_CHUNK = 200;

    /**
     * Raises {@code synchronous_commit} from {@code off} (set for the server, the database, the role or the session)
     * to {@code local} for the transaction: its commit returns once it is flushed to the server's disk. Any other
     * value is already durable on the server and is kept, with what it asks of standbys.
     */
    static final String DURABLE_COMMIT = ", set_config('synchronous_commit', CASE current_setting('synchronous_commit')"
            + " WHEN 'off' THEN 'local' ELSE current_setting('synchronous_commit') END, true)";

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** The first version with {@code plan_cache_mode}. */
    private static final int PLAN_CACHE_MODE_SINCE = 12;

    /**
     * The first version whose planner always puts a list of ids ({@code = ANY(...)}) into the primary key's index
     * condition, also in a plan made for unknown parameters over a small table; before it, such a plan scanned every
     * row of the type and filtered them by the list.
     */
    private static final int GENERIC_PLANS_SINCE = 17;

    private static final String LOCK_NOT_AVAILABLE = "55P03";

    /** The statement that gives a transaction its time limits and plan settings. */
    private final String limitsSql;

    /** The batch's one round trip, in this dialect's SQL. */
    private final PostgreSqlBatchUpdate batchUpdate;

    /** How a write batch writes: the one round trip first. */
    private final WritePath writePath;

    /** The event journal's writes in this dialect's SQL. */
    private final PostgreSqlJournalWrites journalWrites;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     * @param majorVersion the server's major version
     */
    PostgreSqlDialect(String prefix, Duration queryTimeout, int majorVersion, boolean allowNonDurableCommits) {
        super(prefix, queryTimeout, allowNonDurableCommits, KeyLocking.ID_LIST, TimeLimits.TRANSACTION);
        // besides the time limits, each transaction sets how its statements are planned, and that it commits to disk
        this.limitsSql = "SELECT set_config('lock_timeout', ?, true), set_config('statement_timeout', ?, true),"
                + " set_config('idle_in_transaction_session_timeout', ?, true)" + planSettings(majorVersion)
                + (allowNonDurableCommits ? "" : DURABLE_COMMIT);
        this.batchUpdate = new PostgreSqlBatchUpdate(states, epochs, limitsSql);
        this.writePath = new LockAndUpdateFirst(batchUpdate);
        this.journalWrites = new PostgreSqlJournalWrites(this);
    }

    /**
     * How the store's statements are planned on a server of a version. Once the driver prepares a statement on the
     * server (from its fifth use on a connection), PostgreSQL may keep one generic plan for it, made for unknown
     * parameters and for the table's size at that moment, until the table's statistics change:
     * <ul>
     * <li>From version 17, each statement is planned once per connection ({@code force_generic_plan}), and with
     * sequential scans ruled out ({@code enable_seqscan} off) the one plan left is an index scan of the primary key
     * under both the type and the ids, at any table size: the plan made over a small table stays right as it
     * grows. Planning each batch's update for its parameters took as long as running it.</li>
     * <li>From 12 to 16, the generic plan made over a small table scans every row of the type and filters them by
     * the listed ids, even without sequential scans, and costs more as the table grows, so each statement is
     * planned for its actual parameters ({@code force_custom_plan}).</li>
     * </ul>
     * <p>docs/performance.md ("Where a durable deposit's CPU goes") has what each cost when measured.
     */
    static String planSettings(int majorVersion) {
        if (majorVersion >= GENERIC_PLANS_SINCE) {
            return ", set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)";
        }
        if (majorVersion >= PLAN_CACHE_MODE_SINCE) {
            return ", set_config('plan_cache_mode', 'force_custom_plan', true)";
        }
        return "";
    }

    /**
     * Sets the transaction's lock, statement and idle-in-transaction timeouts in one round trip, with how its
     * statements are planned ({@link #planSettings}). The idle-in-transaction limit is what frees the row locks of a
     * node frozen or cut off in the middle of a transaction: the server ends its session, so other nodes wait for
     * them no longer than the limit. All are set for the transaction only ({@code SET LOCAL}): nothing outlives it
     * on a connection the application shares.
     */
    @Override
    void beginTransaction(Connection connection, Duration limit) throws SQLException {
        try (PreparedStatement ps = prepare(connection, limitsSql)) {
            PostgreSqlBatchUpdate.bindLimits(ps, 1, limit);
            ps.executeQuery().close();
        }
    }

    /**
     * Refuses a server that runs with {@code fsync=off} (no setting of a session can make its commits reach the disk;
     * PostgreSQL's documentation warns of unrecoverable corruption after a crash); says so, once, when
     * {@code synchronous_commit} is off, which the store's transactions raise for themselves.
     */
    @Override
    void checkDurability(Connection connection) throws SQLException {
        String fsync;
        String synchronousCommit;
        try (Statement st = statement(connection);
                ResultSet rs =
                        st.executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit')")) {
            rs.next();
            fsync = rs.getString(1);
            synchronousCommit = rs.getString(2);
        }
        if ("off".equalsIgnoreCase(fsync) && !allowNonDurableCommits) {
            throw new NonDurableCommitsException(
                    "fsync",
                    fsync,
                    "The PostgreSQL server runs with fsync=off: it does not force its commits to the disk, so a crash"
                            + " of its machine can lose acknowledged writes and corrupt the database, and no setting"
                            + " of a session changes that.",
                    "Set fsync = on in the server's configuration (postgresql.conf or ALTER SYSTEM, then reload);"
                            + " or set sharding.store.allow-non-durable-commits=true to accept losing acknowledged"
                            + " writes.");
        }
        if ("off".equalsIgnoreCase(synchronousCommit)) {
            LOG.info(
                    "PostgreSQL's synchronous_commit is off for the sharding store's connections; {}",
                    allowNonDurableCommits
                            ? "sharding.store.allow-non-durable-commits=true keeps it so: an acknowledged write can be"
                                    + " lost when the server crashes"
                            : "the store's transactions set it to local for themselves, so that their commits are"
                                    + " on disk before they return");
        }
    }

    @Override
    String leaseMicrosLeft() {
        return "CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000000 AS BIGINT)";
    }

    /**
     * Refuses the request while another cluster's lease is live ({@link #heldByAnotherCluster}, which also makes the
     * requests of all clusters take turns on the store's row); then one upsert decides: it inserts the first lease of a cluster, or locks the existing row and takes it over only
     * when the asker holds it or it has expired by {@code clock_timestamp()}. {@code ON CONFLICT} makes concurrent
     * first inserts wait for each other rather than fail, and evaluates the condition on the latest committed row,
     * which it keeps locked; when the condition refuses, the row is read again in the same transaction (the lock
     * keeps it as it was) to say who holds it.
     */
    @Override
    CoordinatorLease acquireLease(
            Connection connection, String clusterName, String holderId, String holderName, Duration duration)
            throws SQLException {
        CoordinatorLease other = heldByAnotherCluster(connection, clusterName);
        if (other != null) {
            return other;
        }
        String left = leaseMicrosLeft();
        try (PreparedStatement take = prepare(
                        connection,
                        "INSERT INTO " + leases + " AS l (cluster_name,"
                                + " holder_id, holder_name, expires_at) VALUES (?, ?, ?, clock_timestamp() + make_interval(secs => ?))"
                                + " ON CONFLICT (cluster_name) DO UPDATE SET holder_id = EXCLUDED.holder_id,"
                                + " holder_name = EXCLUDED.holder_name, expires_at = EXCLUDED.expires_at"
                                + " WHERE l.holder_id = EXCLUDED.holder_id OR l.expires_at <= clock_timestamp()"
                                + " RETURNING holder_id, holder_name, " + left.replace("expires_at", "l.expires_at"));
                PreparedStatement read = prepare(
                        connection,
                        "SELECT holder_id, holder_name, " + left + " FROM " + leases + " WHERE cluster_name = ?")) {
            take.setString(1, clusterName);
            take.setString(2, holderId);
            take.setString(3, holderName);
            take.setDouble(4, duration.toNanos() / 1000 / 1e6);
            try (ResultSet rs = take.executeQuery()) {
                if (rs.next()) {
                    return new CoordinatorLease(true, holderId, holderName, micros(rs.getLong(3)));
                }
            }
            read.setString(1, clusterName);
            try (ResultSet rs = read.executeQuery()) {
                if (rs.next()) {
                    return refused(rs);
                }
            }
        }
        // only a database that broke the upsert's promise gets here; the caller's transaction is rolled back
        throw new SQLException(
                "The coordinator lease row of cluster [" + clusterName + "] was neither taken nor" + " found");
    }

    @Override
    void createStoreId(Connection connection, String id) throws SQLException {
        try (PreparedStatement ps = prepare(
                connection,
                "INSERT INTO " + storeTable
                        + " (id, store_id, created_at) VALUES (1, ?, clock_timestamp()) ON CONFLICT (id) DO NOTHING")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    @Override
    String name() {
        return "postgresql";
    }

    @Override
    void limitLockWaits(Connection connection, Duration limit) throws SQLException {
        try (PreparedStatement ps = prepare(connection, "SELECT set_config('lock_timeout', ?, true)")) {
            ps.setString(1, StoreTimeouts.millis(limit) + "ms");
            ps.executeQuery().close();
        }
    }

    @Override
    boolean lockNotAvailable(SQLException e) {
        // lock_not_available: a NOWAIT lock held by another transaction, or a wait past lock_timeout
        return LOCK_NOT_AVAILABLE.equals(e.getSQLState());
    }

    @Override
    boolean[] insertStates(Connection connection, List<StateRow> rows) throws SQLException {
        boolean[] inserted = new boolean[rows.size()];
        for (int from = 0; from < rows.size(); from += INSERT_CHUNK) {
            List<StateRow> chunk = rows.subList(from, Math.min(rows.size(), from + INSERT_CHUNK));
            String sql = "INSERT INTO " + states
                    + " (type_name, entity_id, state, version, epoch, applied_messages, updated_at) VALUES "
                    + String.join(", ", Collections.nCopies(chunk.size(), "(?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)"))
                    + " ON CONFLICT (type_name, entity_id) DO NOTHING RETURNING type_name, entity_id";
            Set<EntityKey> done = new HashSet<>();
            try (PreparedStatement ps = prepare(connection, sql)) {
                int p = 1;
                for (StateRow row : chunk) {
                    ps.setString(p++, row.typeName());
                    ps.setString(p++, row.entityId());
                    ps.setBytes(p++, row.state());
                    ps.setLong(p++, row.version());
                    ps.setLong(p++, row.epoch());
                    ps.setBytes(p++, row.applied());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        done.add(new EntityKey(rs.getString(1), rs.getString(2)));
                    }
                }
            }
            for (int i = 0; i < chunk.size(); i++) {
                inserted[from + i] = done.contains(
                        new EntityKey(chunk.get(i).typeName(), chunk.get(i).entityId()));
            }
        }
        return inserted;
    }

    @Override
    WritePath writePath() {
        return writePath;
    }

    /**
     * The update of one type's rows in the batch's one round trip; its parameters: ids, epochs, writes, states,
     * applied ids, type, ids.
     */
    String updateSql() {
        return batchUpdate.updateSql();
    }

    @Override
    void rememberIds(Connection connection, List<RememberedId> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = prepare(
                connection,
                "INSERT INTO " + remembered
                        + " (type_name, shard_id, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
            for (RememberedId id : ids) {
                bind(ps, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** One upsert: concurrent first inserts of the counter row wait for each other rather than fail. */
    @Override
    long takeOffsets(Connection connection, int count) throws SQLException {
        return journalWrites.takeOffsets(connection, count);
    }

    /** See {@link PostgreSqlJournalWrites#writeEvents}. */
    @Override
    void writeEvents(Connection connection, List<JournalSql.EventRow> rows) throws SQLException {
        journalWrites.writeEvents(connection, rows);
    }

    @Override
    void upsertSnapshots(Connection connection, List<StoreOperation.Append> appends) throws SQLException {
        journalWrites.upsertSnapshots(connection, appends);
    }

    @Override
    long nextEpoch(Connection connection, String typeName, int shardId) throws SQLException {
        shardEpochs().lockBriefly(connection, typeName, shardId);
        try (PreparedStatement ps = prepare(
                connection,
                "INSERT INTO " + epochs
                        + " AS e (type_name, shard_id, epoch) VALUES (?, ?, 1) ON CONFLICT (type_name, shard_id)"
                        + " DO UPDATE SET epoch = e.epoch + 1 RETURNING epoch")) {
            ps.setString(1, typeName);
            ps.setInt(2, shardId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException(
                            "The epoch upsert of [" + typeName + "/shard " + shardId + "] returned no row");
                }
                return rs.getLong(1);
            }
        }
    }
}
