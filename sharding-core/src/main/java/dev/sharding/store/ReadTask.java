package dev.sharding.store;

import dev.sharding.ShardingException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One read (or epoch increment, lease request, store id request) of a {@link JdbcShardingStore}, run on a read or
 * lease thread; kept as its own type so that {@code close()} can fail the tasks that never ran. A task whose future
 * is already done when its turn comes (failed by its deadline while it waited) does not run.
 *
 * @param <T> the result type
 */
final class ReadTask<T> implements Runnable {

    /**
     * Database work on a connection.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    interface Work<T> {

        /**
         * Does the work.
         *
         * @param connection an open connection
         * @param dialect the database's dialect
         * @return the result
         * @throws SQLException on failure
         */
        T run(Connection connection, JdbcDialect dialect) throws SQLException;
    }

    /**
     * Database work that finds its own connection.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    interface Body<T> {

        /**
         * Does the work.
         *
         * @return the result
         * @throws SQLException on failure
         */
        T run() throws SQLException;
    }

    private final String what;

    private final CompletableFuture<T> future;

    private final Body<T> body;

    private final Duration limit;

    private final Duration queryTimeout;

    /**
     * Creates the task.
     *
     * @param what the operation, for messages ("read of the state of [a/1]")
     * @param future completed with the result
     * @param limit the time limit the database was given, for messages
     * @param queryTimeout the store's query timeout, for messages
     * @param body the work
     */
    ReadTask(String what, CompletableFuture<T> future, Duration limit, Duration queryTimeout, Body<T> body) {
        this.what = what;
        this.future = future;
        this.limit = limit;
        this.queryTimeout = queryTimeout;
        this.body = body;
    }

    /**
     * The operation, for messages.
     *
     * @return its description
     */
    String what() {
        return what;
    }

    @Override
    public void run() {
        if (future.isDone()) {
            return;
        }
        try {
            future.complete(body.run());
        } catch (SQLException | RuntimeException e) {
            future.completeExceptionally(new ShardingException(
                    "The store failed the " + what + ": " + StoreTimeouts.reason(e, limit, queryTimeout), e));
        }
    }

    /**
     * Fails the task without running it.
     *
     * @param cause why
     */
    void fail(Throwable cause) {
        future.completeExceptionally(cause);
    }
}
