package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection borrowed for one unit of work, with a network timeout for as long as it is borrowed: the driver gives
 * up on a database that sends nothing for that long (a hung server, a cut network), where a statement timeout cannot
 * help because the database never gets to enforce it. The connection's own network timeout is put back before it
 * goes back to the pool, which may share it with the application. Drivers without network timeouts (H2) go without.
 */
final class StoreConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** Drivers call the executor only to abort a connection; ours runs such work at once. */
    private static final Executor DIRECT = Runnable::run;

    private final Connection connection;

    private final int previousTimeout;

    private final boolean changed;

    private StoreConnection(Connection connection, int previousTimeout, boolean changed) {
        this.connection = connection;
        this.previousTimeout = previousTimeout;
        this.changed = changed;
    }

    /**
     * Borrows a connection and gives it a network timeout.
     *
     * @param dataSource where to borrow it
     * @param networkTimeout how long the driver waits for any answer of the database
     * @return the connection; close it to give it back
     * @throws SQLException when no connection can be had
     */
    static StoreConnection open(DataSource dataSource, Duration networkTimeout) throws SQLException {
        Connection connection = dataSource.getConnection();
        int previous = 0;
        boolean changed = false;
        try {
            previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, StoreTimeouts.millis(networkTimeout));
            changed = true;
        } catch (SQLFeatureNotSupportedException | AbstractMethodError | UnsupportedOperationException e) {
            // a driver without network timeouts: the statement timeouts still apply
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new StoreConnection(connection, previous, changed);
    }

    /**
     * The borrowed connection.
     *
     * @return the connection
     */
    Connection connection() {
        return connection;
    }

    /**
     * Puts the network timeout back and gives the connection back.
     *
     * @throws SQLException when the connection cannot be closed
     */
    @Override
    public void close() throws SQLException {
        try {
            if (changed && !connection.isClosed()) {
                connection.setNetworkTimeout(DIRECT, previousTimeout);
            }
        } catch (SQLException | RuntimeException e) {
            // a broken connection is the pool's to discard
            LOG.debug("Could not restore the network timeout of a store connection: {}", e.toString());
        } finally {
            connection.close();
        }
    }
}
