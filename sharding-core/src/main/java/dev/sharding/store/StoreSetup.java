package dev.sharding.store;

import dev.sharding.ShardingException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link JdbcShardingStore} does once, at startup, on a connection of its own: it creates its tables where they
 * are missing ({@link JdbcShardingStore#createSchema()}) and checks that the database's commits are durable
 * ({@link JdbcShardingStore#checkDurability()}), waiting up to {@link JdbcShardingStore#STARTUP_WAIT} for a database
 * that does not answer yet.
 */
final class StoreSetup {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private final ConnectionSource connections;

    private final JdbcStoreSettings settings;

    private final BatchWriter.Dialects dialects;

    /**
     * Creates the setup of a store.
     *
     * @param connections where to borrow connections
     * @param settings the store's validated settings
     * @param dialects finds the database's dialect (and checks its durability the first time)
     */
    StoreSetup(ConnectionSource connections, JdbcStoreSettings settings, BatchWriter.Dialects dialects) {
        this.connections = connections;
        this.settings = settings;
        this.dialects = dialects;
    }

    /**
     * Creates the store's tables where they are missing; see {@link JdbcShardingStore#createSchema()}.
     *
     * @throws ShardingException when the database cannot be reached or refuses the script
     */
    void createSchema() {
        try (StoreConnection borrowed = StoreConnection.open(
                connections,
                settings.queryTimeout().multipliedBy(2),
                System.nanoTime() + settings.queryTimeout().multipliedBy(2).toNanos(),
                settings.queryTimeout().multipliedBy(2))) {
            Connection connection = borrowed.connection();
            JdbcDialect d = dialects.of(connection);
            @SuppressWarnings("NullAway") // no result: Void
            ReadTask.Body<Void> create = () -> {
                d.ensureDurableCommits(connection);
                d.beginTransaction(connection);
                try (Statement st = d.statement(connection)) {
                    for (String sql : d.schemaStatements()) {
                        st.execute(sql);
                    }
                }
                return null;
            };
            JdbcTransactions.inTransaction(connection, create);
        } catch (SQLException e) {
            throw new ShardingException(
                    "Could not create the sharding tables (prefix " + settings.tablePrefix() + "): "
                            + StoreTimeouts.reason(e, settings.queryTimeout(), settings.queryTimeout()),
                    e);
        }
    }

    /**
     * Checks the durability of the database's commits; see {@link JdbcShardingStore#checkDurability()}.
     *
     * @throws NonDurableCommitsException when the database acknowledges commits before they are on disk and the
     *     store cannot change that
     * @throws ShardingException when the database cannot be reached
     */
    void checkDurability() {
        long deadline = System.nanoTime() + JdbcShardingStore.STARTUP_WAIT.toNanos();
        boolean told = false;
        while (true) {
            Duration twice = settings.queryTimeout().multipliedBy(2);
            try (StoreConnection borrowed =
                    StoreConnection.open(connections, twice, System.nanoTime() + twice.toNanos(), twice)) {
                Connection connection = borrowed.connection();
                dialects.of(connection).ensureDurableCommits(connection);
                return;
            } catch (SQLException e) {
                String reason = StoreTimeouts.reason(e, settings.queryTimeout(), settings.queryTimeout());
                boolean passing = StoreTimeouts.unanswered(e) || JdbcTransactions.connectionLost(e);
                if (!passing || System.nanoTime() - deadline >= 0) {
                    throw new ShardingException(
                            "Could not check the durability of the sharding store's database"
                                    + (told
                                            ? " (waited " + StoreTimeouts.format(JdbcShardingStore.STARTUP_WAIT) + ")"
                                            : "")
                                    + ": "
                                    + reason,
                            e);
                }
                if (!told) {
                    LOG.info(
                            "The sharding store's database does not answer yet ({}); waiting up to {} for it",
                            reason,
                            StoreTimeouts.format(JdbcShardingStore.STARTUP_WAIT));
                    told = true;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
            }
        }
    }
}
