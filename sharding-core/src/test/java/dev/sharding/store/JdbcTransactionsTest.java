package dev.sharding.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Which failed transactions another connection may run again with nothing applied ({@link
 * JdbcTransactions#connectionLost}), on connections that fail as H2's do when the node serving the embedded file
 * closes its database in the middle of another node's transaction.
 */
class JdbcTransactionsTest {

    /** H2's answer to a statement of a transaction the closing server rolled back: a general error, 50000. */
    private static SQLException rolledBackByTheServer() {
        return new SQLException("General error: \"Transaction 3 has status ROLLED_BACK, not OPEN\"", "HY000", 50000);
    }

    /** H2's answer on a connection to a database that closed: 90121. */
    private static SQLException databaseClosed() {
        return new SQLNonTransientConnectionException("Database is already closed", "90121", 90121);
    }

    /**
     * A connection whose calls record their names; rollback and commit fail with the given failures, if any.
     */
    private static Connection connection(
            List<String> calls, @Nullable SQLException rollbackFailure, @Nullable SQLException commitFailure) {
        return (Connection) Proxy.newProxyInstance(
                JdbcTransactionsTest.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                    calls.add(m.getName());
                    switch (m.getName()) {
                        case "getAutoCommit":
                            return true;
                        case "rollback":
                            if (rollbackFailure != null) {
                                throw rollbackFailure;
                            }
                            return null;
                        case "commit":
                            if (commitFailure != null) {
                                throw commitFailure;
                            }
                            return null;
                        default:
                            return null;
                    }
                });
    }

    @Test
    void aStatementFailureWhoseRollbackFindsTheDatabaseClosedIsALostConnection() {
        List<String> calls = new ArrayList<>();
        Connection c = connection(calls, databaseClosed(), null);

        assertThatThrownBy(() -> JdbcTransactions.inTransaction(c, () -> {
                    throw rolledBackByTheServer();
                }))
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(JdbcTransactions.connectionLost(e))
                        .as("the rollback found the connection lost: nothing committed, another connection may work")
                        .isTrue());
        assertThat(calls).doesNotContain("commit");
    }

    @Test
    void aStatementFailureWhoseRollbackSucceedsIsNotALostConnection() {
        Connection c = connection(new ArrayList<>(), null, null);

        assertThatThrownBy(() -> JdbcTransactions.inTransaction(c, () -> {
                    throw rolledBackByTheServer();
                }))
                .satisfies(e -> assertThat(JdbcTransactions.connectionLost(e)).isFalse());
    }

    @Test
    void aCommitWithoutAnswerIsNeverALostConnectionWhateverItsRollbackSays() {
        Connection c = connection(new ArrayList<>(), databaseClosed(), databaseClosed());

        assertThatThrownBy(() -> JdbcTransactions.inTransaction(c, () -> null)).satisfies(e -> {
            assertThat(JdbcTransactions.outcomeUnknown(e)).isTrue();
            assertThat(JdbcTransactions.connectionLost(e))
                    .as("the commit may have been applied: never tried again as if it was not")
                    .isFalse();
        });
    }

    @Test
    void aLostConnectionIsFoundAmongTheCauses() {
        assertThat(JdbcTransactions.connectionLost(new IllegalStateException("wrapped", databaseClosed())))
                .isTrue();
        assertThat(JdbcTransactions.connectionLost(new SQLException("duplicate key", "23505")))
                .isFalse();
        assertThat(JdbcTransactions.connectionLost(null)).isFalse();
    }
}
