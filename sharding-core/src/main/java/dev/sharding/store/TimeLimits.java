package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Where the time limits of the store's transactions live ({@link JdbcDialect#beginTransaction(Connection)}): in the
 * session, set once for a connection and limiting lock waits only, or in each transaction, set by its first statement
 * and limiting every statement on the server. Each dialect says which ({@link PortableSql#timeLimits()}).
 */
enum TimeLimits {

    /**
     * The limits last for the session (H2's {@code LOCK_TIMEOUT}): a connection that keeps them for many transactions
     * sets them once. They limit lock waits only, so every statement carries the driver's query timeout too.
     */
    SESSION {
        @Override
        <S extends Statement> S limit(S statement, int queryTimeoutSeconds) throws SQLException {
            try {
                statement.setQueryTimeout(queryTimeoutSeconds);
            } catch (SQLException | RuntimeException e) {
                statement.close();
                throw e;
            }
            return statement;
        }

        @Override
        Start onConnection(JdbcDialect dialect) {
            return new Start() {
                private boolean set;

                @Override
                public void begin(Connection connection) throws SQLException {
                    if (!set) {
                        dialect.beginTransaction(connection);
                        set = true;
                    }
                }
            };
        }
    },

    /**
     * The limits are set for each transaction (PostgreSQL's {@code set_config(..., true)}), so that they never
     * outlive the store's own transactions on a connection the application shares, and they limit every statement
     * on the server ({@code statement_timeout}): statements need no query timeout of the driver's, which would only
     * add a timer task per statement (the connection's network timeout covers a server that stops answering).
     */
    TRANSACTION {
        @Override
        <S extends Statement> S limit(S statement, int queryTimeoutSeconds) {
            return statement;
        }

        @Override
        Start onConnection(JdbcDialect dialect) {
            return dialect::beginTransaction;
        }
    };

    /**
     * Gives a new statement the query timeout, unless the server limits statements itself; closes it when that fails.
     *
     * @param statement the statement
     * @param queryTimeoutSeconds the query timeout
     * @param <S> its type
     * @return the statement
     * @throws SQLException on failure
     */
    abstract <S extends Statement> S limit(S statement, int queryTimeoutSeconds) throws SQLException;

    /**
     * What sets the limits at the start of each transaction on one connection, for a caller that keeps the
     * connection for many of them (the store's writer); valid until the connection is given back.
     *
     * @param dialect the connection's dialect
     * @return the start of the connection's transactions
     */
    abstract Start onConnection(JdbcDialect dialect);

    /** Sets the time limits of a transaction on one connection, where they are not set already. */
    @FunctionalInterface
    interface Start {

        /**
         * Sets the limits, before the transaction's first statement.
         *
         * @param connection the connection, in a transaction that has run nothing yet
         * @throws SQLException on failure
         */
        void begin(Connection connection) throws SQLException;
    }
}
