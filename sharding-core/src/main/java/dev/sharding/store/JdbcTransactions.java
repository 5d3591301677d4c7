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
            connection.commit();
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
     * Whether a failed transaction is worth another try: deadlocks and serialization failures (SQLSTATE class 40).
     *
     * @param e the failure
     * @return whether to try again
     */
    static boolean isTransient(SQLException e) {
        for (@Nullable SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if (x instanceof SQLTransactionRollbackException || (state != null && state.startsWith("40"))) {
                return true;
            }
        }
        return false;
    }
}
