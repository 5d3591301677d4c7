package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection of a {@link BatchWriter}, borrowed when work arrives and kept, with auto-commit off, while more is
 * queued: a connection taken from the pool and given back for every transaction costs round trips (and, on H2, a
 * rollback that writes the file) that a steady stream of batches does not need. While it is held, the watchdog aborts
 * it when a transaction on it passes the write deadline. Only the writer thread uses it.
 */
final class HeldConnection {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private final ConnectionSource connections;

    private final BatchWriter.Dialects dialects;

    private final StoreWatchdog watchdog;

    private final Duration queryTimeout;

    /** The writer's deadline, which also bounds the wait for a connection. */
    private final WriteSweep sweep;

    /** The connection kept between batches while work is queued. */
    private @Nullable StoreConnection held;

    /** Sets the time limits of each transaction on the held connection. */
    private TimeLimits.@Nullable Start limits;

    /** What disarms the watchdog of the held connection's transaction. */
    private Runnable armed = StoreWatchdog.DISARMED;

    /** Ends the watch of the current write transaction for running long. */
    private Runnable longCall = StoreWatchdog.DISARMED;

    /**
     * Creates the writer's connection, not borrowed yet.
     *
     * @param connections where to borrow it
     * @param dialects finds the database's dialect
     * @param watchdog aborts the connection when a transaction passes the write deadline
     * @param queryTimeout the longest a statement may run
     * @param sweep the writer's deadline
     */
    HeldConnection(
            ConnectionSource connections,
            BatchWriter.Dialects dialects,
            StoreWatchdog watchdog,
            Duration queryTimeout,
            WriteSweep sweep) {
        this.connections = connections;
        this.dialects = dialects;
        this.watchdog = watchdog;
        this.queryTimeout = queryTimeout;
        this.sweep = sweep;
    }

    /**
     * The held connection, borrowed first when there is none; a connection newly borrowed is first made to commit
     * durably ({@link JdbcDialect#ensureDurableCommits}), and watched.
     *
     * @return the connection, auto-commit off
     * @throws SQLException when none could be borrowed in time, or made durable
     */
    Connection borrow() throws SQLException {
        StoreConnection c = held;
        if (c == null) {
            // no longer than the batch may take: the sweep fails it then, and the writer goes on with the next
            Duration writeDeadline = sweep.writeDeadline();
            c = StoreConnection.open(connections, queryTimeout.multipliedBy(2), sweep.deadline(), writeDeadline);
            armed = watchdog.arm(c, writeDeadline, "write transaction");
            try {
                Connection connection = c.connection();
                // after auto-commit goes off: H2 then fails the connection rather than reconnect it (AUTO_RECONNECT)
                // to a server that may have another write delay
                connection.setAutoCommit(false);
                JdbcDialect dialect = dialects.of(connection);
                dialect.ensureDurableCommits(connection);
                limits = dialect.timeLimits().onConnection(dialect);
            } catch (SQLException | RuntimeException e) {
                disarm();
                try {
                    c.close();
                } catch (SQLException closing) {
                    e.addSuppressed(closing);
                }
                if (e instanceof SQLException sql) {
                    throw c.explain(sql);
                }
                throw e;
            }
            held = c;
        }
        return c.connection();
    }

    /**
     * What sets the time limits of each transaction on the held connection.
     *
     * @return the start of its transactions; only after {@link #borrow()}
     */
    TimeLimits.Start limits() {
        return Objects.requireNonNull(limits, "no connection held");
    }

    /**
     * Has the watchdog watch the held connection for the write deadline, unless it watches it already.
     *
     * @param what the work, for the watchdog's message
     */
    void watch(String what) {
        if (armed == StoreWatchdog.DISARMED) {
            armed = watchdog.arm(Objects.requireNonNull(held), sweep.writeDeadline(), what);
        }
    }

    /**
     * Has the watchdog watch a write transaction on the held connection: for the write deadline, as {@link #watch},
     * and for whether it runs long ({@link StoreWatchdog#watchLongCall}), which may be a wait for rows another session
     * holds.
     *
     * @param what the work, for the watchdog's message
     */
    void watchTransaction(String what) {
        watch(what);
        longCall.run();
        longCall = watchdog.watchLongCall(Objects.requireNonNull(held));
    }

    /** Ends the watch of the held connection's work. */
    void disarm() {
        armed.run();
        armed = StoreWatchdog.DISARMED;
        longCall.run();
        longCall = StoreWatchdog.DISARMED;
    }

    /**
     * Gives the connection back after a failure on it, and says what the failure was: a connection the watchdog
     * aborted says so.
     *
     * @param failure the failure
     * @return the failure, explained
     */
    SQLException giveBackAfter(SQLException failure) {
        StoreConnection failed = held;
        // the connection may be what failed: the next attempt borrows another
        giveBack();
        return failed == null ? failure : failed.explain(failure);
    }

    /**
     * Asks the database one trivial statement on the held connection (borrowed first), under the write deadline.
     *
     * @throws SQLException when the database does not answer, or fails
     */
    void checkAnswers() throws SQLException {
        Connection connection = borrow();
        watch("check that the database answers again");
        try (Statement check = connection.createStatement()) {
            check.setQueryTimeout((int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000));
            check.execute("SELECT 1");
        } finally {
            disarm();
        }
        connection.rollback();
    }

    /** Gives the writer's connection back to the pool, auto-commit on again, when it has one. */
    void giveBack() {
        // the watch of the held connection ends with it, whatever ended its transaction
        disarm();
        StoreConnection c = held;
        if (c == null) {
            return;
        }
        held = null;
        limits = null;
        // resetting the connection asks the database too (and so may the pool): watched, and counted as busy, so that
        // a database that stops answering now neither holds the writer nor the writes queued meanwhile
        boolean idle = sweep.isIdle();
        if (idle) {
            sweep.busy();
        }
        Runnable release = watchdog.arm(c, sweep.writeDeadline(), "release of the writer's connection");
        try (c) {
            c.connection().setAutoCommit(true);
        } catch (SQLException e) {
            SQLException failure = c.explain(e);
            if (StoreTimeouts.unanswered(failure)) {
                // the database did not answer the release either: the writer asks it before it takes a write again,
                // rather than try the writes queued meanwhile on it, each for a deadline
                sweep.unanswered(true, failure);
            }
            // a broken connection is the pool's to discard
            LOG.debug("Could not give the store writer's connection back cleanly: {}", failure.toString());
        } catch (RuntimeException e) {
            LOG.debug("Could not give the store writer's connection back cleanly: {}", e.toString());
        } finally {
            release.run();
            if (idle) {
                sweep.idle();
            }
        }
    }
}
