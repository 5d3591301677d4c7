package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection borrowed for one unit of work, with a network timeout for as long as it is borrowed: the driver gives
 * up on a database that sends nothing for that long (a hung server, a cut network), where a statement timeout cannot
 * help because the database never gets to enforce it. The connection's own network timeout is put back before it
 * goes back to the pool, which may share it with the application. Drivers without network timeouts (H2) go without;
 * the {@link StoreWatchdog} aborts their connections instead ({@link #abort()}).
 */
final class StoreConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** Drivers call the executor only to abort a connection; ours runs such work at once. */
    private static final Executor DIRECT = Runnable::run;

    private final Connection connection;

    private final int previousTimeout;

    private final boolean changed;

    private final boolean timesOut;

    private volatile boolean aborted;

    private final ConnectionSource source;

    private StoreConnection(
            ConnectionSource source, Connection connection, int previousTimeout, boolean changed, boolean timesOut) {
        this.source = source;
        this.connection = connection;
        this.previousTimeout = previousTimeout;
        this.changed = changed;
        this.timesOut = timesOut;
    }

    /**
     * Borrows a connection and gives it a network timeout; an H2 client connection without one gets a read timeout
     * of that length on its sockets, which it keeps ({@link H2Sockets#ensureReadTimeout}).
     *
     * @param source where to borrow it
     * @param networkTimeout how long the driver waits for any answer of the database
     * @param deadline when to give up waiting for the connection, a {@link System#nanoTime()} value
     * @param limit the time from the call's start to the deadline, for messages
     * @return the connection; close it to give it back
     * @throws SQLException when no connection can be had by the deadline
     */
    static StoreConnection open(ConnectionSource source, Duration networkTimeout, long deadline, Duration limit)
            throws SQLException {
        Connection connection = source.get(deadline, limit);
        int previous = 0;
        boolean changed = false;
        boolean timesOut = false;
        try {
            previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(DIRECT, StoreTimeouts.millis(networkTimeout));
            changed = true;
            // H2's driver accepts the call and does nothing (and a pool in front of it reports the value set)
            timesOut = !connection.getMetaData().getDriverName().startsWith("H2");
        } catch (SQLFeatureNotSupportedException | AbstractMethodError | UnsupportedOperationException e) {
            // a driver without network timeouts: the statement timeouts still apply
        } catch (SQLException | RuntimeException e) {
            if (isBroken(connection)) {
                // the pool handed out a connection that died (an H2 one the store aborted before, say)
                source.discard(connection);
            } else {
                try {
                    connection.close();
                } catch (SQLException closing) {
                    e.addSuppressed(closing);
                }
            }
            throw e;
        }
        if (!timesOut) {
            H2Sockets.ensureReadTimeout(connection, StoreTimeouts.millis(networkTimeout));
        }
        return new StoreConnection(source, connection, previous, changed, timesOut);
    }

    /** Whether the connection underneath a borrowed one is closed: broken, not to be handed out again. */
    private static boolean isBroken(Connection connection) {
        try {
            return connection.unwrap(Connection.class).isClosed();
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The failure of a call on this connection, as the caller should see it: when the watchdog aborted the
     * connection, one that says so (and that {@link StoreTimeouts} recognizes), with the driver's as its cause.
     *
     * @param failure what the driver threw
     * @return the failure to report
     */
    SQLException explain(SQLException failure) {
        return aborted ? new AbortedConnectionException(failure) : failure;
    }

    /** A call failed because the watchdog aborted its connection at its deadline. */
    static final class AbortedConnectionException extends java.sql.SQLTimeoutException {

        @java.io.Serial
        private static final long serialVersionUID = 1L;

        AbortedConnectionException(SQLException cause) {
            super("The database did not answer, and the store aborted the connection at its deadline", "08006", cause);
        }
    }

    /**
     * Whether the driver gives up by itself on a database that sends nothing for the network timeout; when not (H2),
     * the {@link StoreWatchdog} watches the connection.
     *
     * @return true when the network timeout took
     */
    boolean timesOutByItself() {
        return timesOut;
    }

    /**
     * Aborts the connection from another thread, so that the thread blocked on it gets an error: through
     * {@link Connection#abort}, and for H2, whose abort does nothing, by closing its sockets. The pool then finds
     * the connection broken.
     */
    void abort() {
        aborted = true;
        try {
            connection.abort(DIRECT);
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            LOG.debug("Could not abort a store connection: {}", e.toString());
        }
        H2Sockets.close(connection);
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
     * Puts the network timeout back and gives the connection back; one that is broken (closed underneath, as H2's
     * client closes a connection whose server stopped answering), or that the watchdog aborted, is given back for the
     * pool to discard ({@link ConnectionSource#discard}).
     *
     * @throws SQLException when the connection cannot be closed
     */
    @Override
    public void close() throws SQLException {
        if (aborted || isBroken(connection)) {
            source.discard(connection);
            return;
        }
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
