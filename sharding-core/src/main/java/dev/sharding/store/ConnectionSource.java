package dev.sharding.store;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the store's threads get their connections: the application's {@link DataSource}, asked on a thread of its own
 * so that a store thread waits for a connection no longer than its call's deadline. A pool can hang in
 * {@link DataSource#getConnection()} whatever its own timeouts say: it validates an idle connection before it hands
 * it out ({@link Connection#isValid}), and a connection whose database stopped answering answers that only when its
 * driver's network timeout passes (HikariCP's {@code validationTimeout}, 5 s by default) or, for a driver without
 * one (H2's client), when TCP delivers again, which after an outage can be many seconds after the database answers
 * again. The store thread gives up at its deadline and fails its call, and its next call asks again on another thread,
 * which gets a connection the outage did not catch as soon as the database answers; the connection of a request given
 * up is given back to the pool whenever it comes. At most {@link #MAX_PENDING} requests wait at once.
 *
 * <p>Also tells the pool to discard a connection the store found broken ({@link #discard}): HikariCP only discards
 * connections whose errors it recognizes (SQLSTATE class 08), which H2's are not, and a pool that is asked for a
 * connection again within half a second of its return does not validate it, so a broken connection the store keeps
 * borrowing would be handed to it again and again.
 */
final class ConnectionSource {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** The most requests for a connection that may wait at once; more fail at once, without asking. */
    static final int MAX_PENDING = 16;

    private final DataSource dataSource;

    private final ThreadPoolExecutor threads;

    private final @Nullable Method evict;

    private final AtomicLong abandoned = new AtomicLong();

    private final AtomicLong discarded = new AtomicLong();

    /**
     * Wraps a data source.
     *
     * @param dataSource the application's data source
     */
    ConnectionSource(DataSource dataSource) {
        this.dataSource = dataSource;
        this.threads = new ThreadPoolExecutor(
                0,
                MAX_PENDING,
                30,
                TimeUnit.SECONDS,
                new SynchronousQueue<>(),
                StoreThreads.factory("sharding-store-connect-"));
        this.evict = evictMethod(dataSource);
    }

    /** HikariCP's {@code evictConnection(Connection)}, when the data source is a HikariCP pool. */
    private static @Nullable Method evictMethod(DataSource dataSource) {
        try {
            Method m = dataSource.getClass().getMethod("evictConnection", Connection.class);
            return m.getDeclaringClass().getName().startsWith("com.zaxxer.hikari") ? m : null;
        } catch (NoSuchMethodException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The application's data source.
     *
     * @return it
     */
    DataSource dataSource() {
        return dataSource;
    }

    /**
     * A connection from the data source, or a failure at the deadline.
     *
     * @param deadline a {@link System#nanoTime()} value
     * @param limit the time from the call's start to its deadline, for the message
     * @return the connection
     * @throws SQLException when the data source fails, or (an {@link SQLTimeoutException}) gives no connection by
     *     the deadline
     */
    Connection get(long deadline, Duration limit) throws SQLException {
        CompletableFuture<Connection> connection = new CompletableFuture<>();
        try {
            threads.execute(() -> {
                try {
                    Connection c = dataSource.getConnection();
                    if (!connection.complete(c)) {
                        // given up meanwhile: back to the pool
                        closeQuietly(c);
                    }
                } catch (SQLException | RuntimeException e) {
                    connection.completeExceptionally(e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new NoConnectionException("No connection: " + MAX_PENDING + " requests for a connection wait for"
                    + " the data source already (the database does not answer, or the pool has no connection free)");
        }
        try {
            return connection.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            SQLTimeoutException late = new NoConnectionException("No connection within " + StoreTimeouts.format(limit)
                    + ": the database does not answer, or the pool has no connection free");
            if (connection.completeExceptionally(late)) {
                abandoned.incrementAndGet();
                throw late;
            }
            return connection.join(); // came just now
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            throw (RuntimeException) cause;
        }
    }

    /**
     * Closes the connection underneath a borrowed one, so that a pool that validates the connections it hands out
     * finds it closed, gives it back, and tells the pool (HikariCP) to discard it.
     *
     * @param connection a connection borrowed from the data source, not yet given back
     */
    void discard(Connection connection) {
        discarded.incrementAndGet();
        try {
            Connection physical = connection.unwrap(Connection.class);
            if (physical != connection) {
                physical.close();
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Could not close a broken store connection: {}", e.toString());
        }
        closeQuietly(connection);
        Method m = evict;
        if (m != null) {
            try {
                m.invoke(dataSource, connection);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.debug("Could not evict a broken connection from the pool: {}", e.toString());
            }
        }
    }

    /**
     * How many requests for a connection the store gave up at their deadline.
     *
     * @return the count
     */
    long abandoned() {
        return abandoned.get();
    }

    /**
     * How many broken connections the store told the pool to discard.
     *
     * @return the count
     */
    long discarded() {
        return discarded.get();
    }

    /** No connection came from the data source by a call's deadline. */
    static final class NoConnectionException extends SQLTimeoutException {

        @java.io.Serial
        private static final long serialVersionUID = 1L;

        NoConnectionException(String message) {
            super(message, "08001");
        }
    }

    /** Stops the threads once their requests end. */
    void stop() {
        threads.shutdown();
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Could not give a store connection back: {}", e.toString());
        }
    }
}
