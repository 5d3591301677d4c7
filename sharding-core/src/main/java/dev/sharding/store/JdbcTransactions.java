package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transaction handling shared by the threads of a {@link JdbcShardingStore}.
 */
final class JdbcTransactions {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private JdbcTransactions() {}

    /**
     * Runs work in a transaction of its own on a connection and commits it, or rolls it back when the work fails;
     * auto-commit is restored afterwards.
     *
     * @param connection the connection
     * @param body the work
     * @param <T> its result type
     * @return its result
     * @throws SQLException when the work, the commit or the start of the transaction fails
     */
    static <T> T inTransaction(Connection connection, ReadTask.Body<T> body) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            T result = body.run();
            try {
                connection.commit();
            } catch (SQLException e) {
                throw rolledBack(e) ? e : new CommitOutcomeUnknownException(e);
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            if (autoCommit) {
                try {
                    connection.setAutoCommit(true);
                } catch (SQLException e) {
                    // the outcome is decided; a connection that cannot be reset is the pool's to discard
                    LOG.debug("Could not restore auto-commit on a store connection: {}", e.toString());
                }
            }
        }
    }

    /**
     * Whether a failed commit says the database rolled the transaction back: a serialization failure or deadlock
     * (SQLSTATE class 40) or a constraint checked at commit (class 23). Any other failure (a connection that broke, a
     * database that stopped answering and a connection the store aborted) leaves the outcome unknown: the commit may
     * have reached the database before the connection failed.
     */
    private static boolean rolledBack(SQLException e) {
        for (@Nullable SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if (x instanceof SQLTransactionRollbackException
                    || (state != null && (state.startsWith("40") || state.startsWith("23")))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a failure, or one of its causes, is a commit whose outcome is unknown.
     *
     * @param failure the failure
     * @return true when the transaction may have been committed
     */
    static boolean outcomeUnknown(@Nullable Throwable failure) {
        java.util.Map<Throwable, Boolean> seen = new java.util.IdentityHashMap<>();
        for (@Nullable Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
            if (t instanceof CommitOutcomeUnknownException) {
                return true;
            }
        }
        return false;
    }

    /**
     * A commit failed in a way that leaves its outcome unknown: the transaction may have been committed, or not.
     * Never tried again, and never reported as "nothing applied".
     */
    static final class CommitOutcomeUnknownException extends SQLException {

        private static final long serialVersionUID = 1L;

        CommitOutcomeUnknownException(SQLException cause) {
            super(
                    "The connection failed during the commit, so whether it was committed is unknown: "
                            + cause.getMessage(),
                    cause.getSQLState(),
                    cause.getErrorCode(),
                    cause);
        }
    }

    /** SQLSTATEs of a lost connection outside class 08: PostgreSQL's shutdowns, H2's broken or closed sessions. */
    private static final java.util.Set<String> CONNECTION_LOST_STATES =
            java.util.Set.of("57P01", "57P02", "57P03", "90067", "90098", "90121");

    /**
     * Whether a transaction failed on its connection before any commit was sent: the connection broke, or could not
     * be opened, as when the database server restarted or moved. Nothing of it was applied, and another connection
     * may work. Never a commit whose outcome is unknown, nor a database that does not answer at all (its deadline
     * bounds that: {@link StoreTimeouts#unanswered}).
     *
     * <p>A statement may fail for another reason first and the rollback then find the connection lost: an H2 server
     * that closes its database while a client is in a transaction rolls it back, and the client's next statement
     * fails with a general error ("Transaction 3 has status ROLLED_BACK, not OPEN"), its rollback with "Database is
     * already closed". So the rollback's failure, which {@link #inTransaction} keeps as a suppressed exception, counts
     * too: either way nothing was committed.
     *
     * @param failure the failure
     * @return whether another connection may succeed where this one failed, with nothing applied
     */
    static boolean connectionLost(@Nullable Throwable failure) {
        if (failure == null || outcomeUnknown(failure) || StoreTimeouts.unanswered(failure)) {
            return false;
        }
        java.util.Map<Throwable, Boolean> seen = new java.util.IdentityHashMap<>();
        for (@Nullable Throwable t = failure; t != null && seen.put(t, true) == null; t = t.getCause()) {
            if (lost(t)) {
                return true;
            }
            for (Throwable suppressed : t.getSuppressed()) {
                if (lost(suppressed)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a failure of the store writer's transaction or check, once tried again on other connections until its
     * deadline, says that the database cannot be reached: it did not answer ({@link StoreTimeouts#unanswered}), or the
     * connection was lost ({@link #connectionLost}) and no other worked by then. The writer then asks the database
     * before it tries a write again, and the writes that arrive meanwhile fail at once, unapplied, rather than each
     * wait a deadline.
     *
     * @param failure the failure
     * @return whether the database is taken as out of reach
     */
    static boolean unreachable(@Nullable Throwable failure) {
        return StoreTimeouts.unanswered(failure) || connectionLost(failure);
    }

    /** Whether one failure, not its causes, says the connection is lost. */
    private static boolean lost(Throwable t) {
        if (t instanceof java.sql.SQLTransientConnectionException
                || t instanceof java.sql.SQLNonTransientConnectionException
                || t instanceof java.net.ConnectException) {
            return true;
        }
        if (t instanceof SQLException e) {
            String state = e.getSQLState();
            return state != null && (state.startsWith("08") || CONNECTION_LOST_STATES.contains(state));
        }
        return false;
    }

    /**
     * Whether a failed transaction is worth another try: deadlocks and serialization failures (SQLSTATE class 40).
     *
     * @param e the failure
     * @return whether to try again
     */
    static boolean isTransient(SQLException e) {
        if (outcomeUnknown(e)) {
            return false;
        }
        for (@Nullable SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if (x instanceof SQLTransactionRollbackException || (state != null && state.startsWith("40"))) {
                return true;
            }
        }
        return false;
    }
}
