package dev.sharding.store;

import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of a {@link JdbcShardingStore} for one database product, over the statements every product accepts
 * ({@link PortableSql}): the subclasses add what differs: how a conflicting insert is detected, how an epoch is
 * incremented and the coordinator lease taken atomically, how a transaction is given its time limits, and which
 * strategies it composes ({@link KeyLocking}, {@link TimeLimits}, {@link WritePath}); this class
 * also chooses the dialect of a connection and reads the schema script. Every method runs in the caller's transaction
 * on the caller's connection, and every statement it makes has the query timeout.
 */
abstract class JdbcDialect extends PortableSql {

    /** Whether the store accepts commits that return before they are on disk, leaving the database's settings be. */
    protected final boolean allowNonDurableCommits;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     * @param queryTimeout the longest a statement may run, lock waits included
     * @param allowNonDurableCommits whether to accept commits that return before they are on disk
     * @param keyLocking how the product's lock statements name their keys
     * @param timeLimits where the product keeps the time limits of a transaction
     */
    protected JdbcDialect(
            String prefix,
            Duration queryTimeout,
            boolean allowNonDurableCommits,
            KeyLocking keyLocking,
            TimeLimits timeLimits) {
        super(prefix, queryTimeout, keyLocking, timeLimits);
        this.allowNonDurableCommits = allowNonDurableCommits;
    }

    /**
     * Chooses the dialect of the database a connection leads to.
     *
     * @param connection an open connection
     * @param settings the store's validated settings
     * @return the dialect
     * @throws SQLException if the product is neither H2 nor PostgreSQL, or the metadata cannot be read
     */
    static JdbcDialect detect(Connection connection, JdbcStoreSettings settings) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String prefix = settings.tablePrefix();
        if ("H2".equalsIgnoreCase(product)) {
            return new H2Dialect(prefix, settings.queryTimeout(), settings.allowNonDurableCommits());
        }
        if ("PostgreSQL".equalsIgnoreCase(product)) {
            return new PostgreSqlDialect(
                    prefix,
                    settings.queryTimeout(),
                    connection.getMetaData().getDatabaseMajorVersion(),
                    settings.allowNonDurableCommits());
        }
        throw new SQLFeatureNotSupportedException("The JDBC sharding store supports H2 and PostgreSQL, not " + product);
    }

    /**
     * Checks, once for the database, that its commits reach the disk before they return, or that the store makes
     * them do so on its own connections; unless {@link #allowNonDurableCommits}, refuses a database where neither
     * holds. Runs when the store first meets the database, before the dialect is used.
     *
     * @param connection an open connection in auto-commit mode
     * @throws NonDurableCommitsException when the database's commits are not durable and the store cannot fix that
     * @throws SQLException when the database cannot be asked
     */
    abstract void checkDurability(Connection connection) throws SQLException;

    /**
     * Makes the commits of a connection the store borrowed for a transaction that writes reach the disk before they
     * return, where a setting that any connection can change (H2's write delay) may have changed since the store
     * last looked; nothing where the store's transactions see to it themselves.
     *
     * @param connection an open connection, before the first statement of its transaction; with auto-commit off,
     *     so that H2 fails it rather than reconnect it to another server ({@code AUTO_RECONNECT}) unchecked
     * @throws NonDurableCommitsException when the store cannot make the commits durable
     * @throws SQLException when the database cannot be asked
     */
    void ensureDurableCommits(Connection connection) throws SQLException {}

    /**
     * Told that a call of the store failed: the database may be another process now (H2's file taken over by
     * another node), so {@link #ensureDurableCommits} looks again on the next connection.
     */
    void mayHaveMoved() {}

    /**
     * The product name, as used in the schema script's name.
     *
     * @return "h2" or "postgresql"
     */
    abstract String name();

    /**
     * Inserts new state rows, skipping those whose key another transaction inserted meanwhile.
     *
     * @param connection the batch's connection
     * @param rows the rows, none of which existed when locked
     * @return for each row, whether it was inserted
     * @throws SQLException on any other failure
     */
    abstract boolean[] insertStates(Connection connection, List<StateRow> rows) throws SQLException;

    /**
     * How a write batch locks the epochs of its shards and writes its states on this product.
     *
     * @return the product's write path
     */
    abstract WritePath writePath();

    /**
     * Remembers entity ids; those already remembered stay as they are.
     *
     * @param connection the batch's connection
     * @param ids the ids
     * @throws SQLException on failure
     */
    abstract void rememberIds(Connection connection, List<RememberedId> ids) throws SQLException;

    /**
     * Takes the next global offsets of the event journal: increments the counter row by {@code count} (creating it,
     * at {@code count}, when missing) and keeps it locked until the transaction ends, which is what makes offsets
     * follow commit order ({@link JournalWrites}).
     *
     * @param connection the batch's connection
     * @param count how many offsets, at least one
     * @return the last offset taken; the first is {@code count - 1} below it
     * @throws SQLException on failure
     */
    abstract long takeOffsets(Connection connection, int count) throws SQLException;

    /**
     * Writes the events of a batch's accepted appends with their tags, after taking their global offsets
     * ({@link #takeOffsets}), which is the last thing the transaction does before its commit: in the portable SQL, the
     * counter's update and then one batch of event and one of tag inserts.
     *
     * @param connection the batch's connection
     * @param rows the events, in queue order, which their offsets follow
     * @throws SQLException on failure
     */
    void writeEvents(Connection connection, List<JournalSql.EventRow> rows) throws SQLException {
        long last = takeOffsets(connection, rows.size());
        journal().insertEvents(connection, rows, last - rows.size() + 1);
    }

    /**
     * Stores the snapshots of accepted appends, each in place of its entity's last one. The entities' state rows are
     * locked by the transaction, so no other transaction writes these rows meanwhile.
     *
     * @param connection the batch's connection
     * @param appends the appends with a snapshot, in queue order (the last one of an entity wins)
     * @throws SQLException on failure
     */
    abstract void upsertSnapshots(Connection connection, List<StoreOperation.Append> appends) throws SQLException;

    /**
     * Increments a shard's epoch (1 for its first), atomically with respect to every other node.
     *
     * @param connection a connection in a transaction of its own
     * @param typeName the entity type
     * @param shardId the shard
     * @return the new epoch
     * @throws SQLException on failure
     */
    abstract long nextEpoch(Connection connection, String typeName, int shardId) throws SQLException;

    /**
     * Gives the current transaction the store's time limits, before its first statement: lock waits, and where the
     * database can, statements and pauses of this node between statements.
     *
     * @param connection a connection in a transaction that has run nothing yet
     * @throws SQLException on failure
     */
    final void beginTransaction(Connection connection) throws SQLException {
        beginTransaction(connection, queryTimeout());
    }

    /**
     * Gives the current transaction time limits, before its first statement: no lock is waited for longer than
     * {@code limit}; where the database can, no statement runs longer either, and a session that stays idle in the
     * transaction that long (its node frozen or cut off while it holds row locks) is ended by the database, so that
     * its locks do not hold up the other nodes.
     *
     * <p>The limits last for the transaction or for the session, as {@link #timeLimits()} says.
     *
     * @param connection a connection in a transaction that has run nothing yet
     * @param limit the limit
     * @throws SQLException on failure
     */
    abstract void beginTransaction(Connection connection, Duration limit) throws SQLException;

    /**
     * Takes or renews a cluster's coordinator lease, as {@link dev.sharding.spi.ShardingStore#acquireCoordinatorLease}
     * says: atomically with respect to every other node, and by the database's clock only.
     *
     * @param connection a connection in a transaction of its own, with its time limits
     * @param clusterName the cluster
     * @param holderId the member asking
     * @param holderName its name
     * @param duration how long the lease lasts from the database's now
     * @return the lease as it is after the call
     * @throws SQLException on failure
     */
    abstract CoordinatorLease acquireLease(
            Connection connection, String clusterName, String holderId, String holderName, Duration duration)
            throws SQLException;

    /**
     * The microseconds a lease row has left by the database's clock, as an SQL expression on its {@code expires_at}
     * (negative once it has expired).
     *
     * @return the expression
     */
    abstract String leaseMicrosLeft();

    /**
     * Takes the first step of every lease request: locks the store's one row (created here if no node asked for the
     * store id yet), so that the requests of all clusters on these tables are decided one at a time, and reads the
     * live lease of another cluster, if any. Two clusters asking at once therefore cannot both be granted: the second
     * finds the first's lease committed once it has the row.
     *
     * @param connection a connection in a transaction of its own, with its time limits
     * @param clusterName the cluster asking
     * @return the lease of another cluster that refuses this one, or {@code null} when no other cluster holds one
     * @throws SQLException on failure
     */
    @Nullable
    CoordinatorLease heldByAnotherCluster(Connection connection, String clusterName) throws SQLException {
        lockStoreRow(connection);
        String left = leaseMicrosLeft();
        try (PreparedStatement ps = prepare(
                connection,
                "SELECT cluster_name, holder_id, holder_name, " + left + " FROM " + leases
                        + " WHERE cluster_name <> ? AND " + left + " > 0 ORDER BY 4 DESC FETCH FIRST 1 ROWS ONLY")) {
            ps.setString(1, clusterName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? CoordinatorLease.heldByAnotherCluster(
                                rs.getString(1), rs.getString(2), rs.getString(3), micros(rs.getLong(4)))
                        : null;
            }
        }
    }

    private void lockStoreRow(Connection connection) throws SQLException {
        try (PreparedStatement lock =
                prepare(connection, "SELECT store_id FROM " + storeTable + " WHERE id = 1 FOR UPDATE")) {
            for (int attempt = 0; attempt < 2; attempt++) {
                try (ResultSet rs = lock.executeQuery()) {
                    if (rs.next()) {
                        return;
                    }
                }
                createStoreId(connection, java.util.UUID.randomUUID().toString());
            }
        }
        // an isolation level that hides the row another node committed meanwhile: try a fresh transaction
        throw new java.sql.SQLTransactionRollbackException("The store's row was neither created nor found", "40001");
    }

    /**
     * Deletes a cluster's coordinator lease if the member holds it.
     *
     * @param connection a connection in a transaction of its own, with its time limits
     * @param clusterName the cluster
     * @param holderId the member giving it up
     * @return whether it held it
     * @throws SQLException on failure
     */
    boolean releaseLease(Connection connection, String clusterName, String holderId) throws SQLException {
        try (PreparedStatement ps =
                prepare(connection, "DELETE FROM " + leases + " WHERE cluster_name = ? AND holder_id = ?")) {
            ps.setString(1, clusterName);
            ps.setString(2, holderId);
            return ps.executeUpdate() > 0;
        }
    }

    /**
     * The lease a member was refused, as the row that refused it says, with the time left by the database's clock.
     *
     * @param rs a row of holder id, holder name and microseconds left
     * @return the lease, not granted
     * @throws SQLException on failure
     */
    static CoordinatorLease refused(ResultSet rs) throws SQLException {
        return new CoordinatorLease(false, rs.getString(1), rs.getString(2), micros(rs.getLong(3)));
    }

    /**
     * A time left, never negative.
     *
     * @param micros microseconds, as the database computed them
     * @return the duration
     */
    static Duration micros(long micros) {
        return Duration.ofNanos(Math.multiplyExact(Math.max(0, micros), 1000L));
    }

    /**
     * Reads the store's id.
     *
     * @param connection the connection
     * @return the id, or {@code null} when no node created it yet
     * @throws SQLException on failure
     */
    @Nullable
    String storeId(Connection connection) throws SQLException {
        try (Statement st = statement(connection);
                ResultSet rs = st.executeQuery("SELECT store_id FROM " + storeTable + " WHERE id = 1")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /**
     * Creates the store's id unless a node created it already (meanwhile, too).
     *
     * @param connection a connection in a transaction of its own
     * @param id a new random id
     * @throws SQLException on a failure other than finding the id there
     */
    abstract void createStoreId(Connection connection, String id) throws SQLException;

    /** Splits a script at the semicolons outside {@code $$} quoted bodies (a PostgreSQL {@code DO} block). */
    static List<String> splitStatements(String script) {
        List<String> statements = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < script.length(); i++) {
            char c = script.charAt(i);
            if (c == '$' && script.startsWith("$$", i)) {
                quoted = !quoted;
                i++;
            } else if (c == ';' && !quoted) {
                String statement = script.substring(start, i).strip();
                if (!statement.isEmpty()) {
                    statements.add(statement);
                }
                start = i + 1;
            }
        }
        String last = script.substring(start).strip();
        if (!last.isEmpty()) {
            statements.add(last);
        }
        return statements;
    }

    /**
     * The statements of the schema script, with the table prefix filled in. The scripts are public, for migrations
     * ({@code dev/sharding/store/schema-<name>.sql}), and name the tables with the default prefix.
     *
     * @return the statements, in order
     */
    List<String> schemaStatements() {
        String resource = "/dev/sharding/store/schema-" + name() + ".sql";
        try (InputStream in = JdbcDialect.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Schema script " + resource + " missing from the class path");
            }
            String script = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .filter(line -> !line.strip().startsWith("--"))
                    .collect(Collectors.joining("\n"))
                    .replaceAll(
                            "\\b" + DEFAULT_PREFIX
                                    + "(entity_state|shard_epoch|remembered_entity|coordinator_lease|store|event_journal|event_tag"
                                    + "|event_snapshot|event_offset|projection_offset)\\b",
                            Matcher.quoteReplacement(prefix) + "$1");
            return splitStatements(script);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read schema script " + resource, e);
        }
    }
}
