package dev.sharding.store;

import dev.sharding.ShardingException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The threads of a {@link JdbcShardingStore} other than its writer: a small pool for reads, new epochs and the store
 * id, and one thread for the coordinator lease, so that a lease request never waits behind them. Each task borrows a
 * connection of its own ({@link StoreConnection}, with a network timeout of twice its time limit) and, unless it only
 * reads, runs in a transaction given its time limit ({@link JdbcDialect#beginTransaction(Connection, Duration)}).
 * Its future fails if it is not done within twice the limit from when it was submitted, whatever the database does
 * (a task that had not started by then, or not yet got its connection, does not run); and a connection whose driver
 * cannot time out by itself (H2) is aborted by the {@link StoreWatchdog} once it has been used for twice the limit,
 * which frees the thread. A task whose connection broke, or could not be opened, before it did anything (a database
 * server that restarted or moved: {@link JdbcTransactions#connectionLost}) is tried again on another connection, after
 * a short pause, until that deadline.
 */
final class ConnectionTasks {

    private static final int TRANSACTION_ATTEMPTS = 3;

    /** How much longer than a task an operation served with others may take: see {@link #failAtDeadline}. */
    private static final Duration SERVED_TOGETHER_GRACE = Duration.ofMillis(100);

    /** How a task uses its connection. */
    enum Mode {
        /** Statements as they come, for reads. */
        AUTO_COMMIT,
        /** One transaction with the time limit. */
        TRANSACTION,
        /** One transaction with the time limit, tried up to three times on a deadlock or serialization failure. */
        RETRIED_TRANSACTION
    }

    private final ConnectionSource connections;

    private final Duration queryTimeout;

    private final BatchWriter.Dialects dialects;

    private final ThreadPoolExecutor readers;

    private final ThreadPoolExecutor leases;

    private final ScheduledThreadPoolExecutor deadlines;

    private final AtomicBoolean stopped = new AtomicBoolean();

    private final StoreWatchdog watchdog;

    /** Told of every failed task: the database may have moved ({@link JdbcDialect#mayHaveMoved()}). */
    private final Runnable onFailure;

    /**
     * Starts the threads.
     *
     * @param connections where to borrow connections
     * @param settings the store's validated settings
     * @param dialects finds the database's dialect
     * @param watchdog aborts connections that pass their deadline
     * @param onFailure told of every failed task
     */
    ConnectionTasks(
            ConnectionSource connections,
            JdbcStoreSettings settings,
            BatchWriter.Dialects dialects,
            StoreWatchdog watchdog,
            Runnable onFailure) {
        this.connections = connections;
        this.onFailure = onFailure;
        this.watchdog = watchdog;
        this.queryTimeout = settings.queryTimeout();
        this.dialects = dialects;
        this.readers = new ThreadPoolExecutor(
                settings.readThreads(),
                settings.readThreads(),
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                StoreThreads.factory("sharding-store-read-"));
        this.leases = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                StoreThreads.factory("sharding-store-lease-"));
        this.deadlines = new ScheduledThreadPoolExecutor(1, StoreThreads.factory("sharding-store-deadline-"));
        this.deadlines.setRemoveOnCancelPolicy(true);
    }

    /**
     * Runs work on a read thread, with the query timeout as its limit.
     *
     * @param what the operation, for messages
     * @param mode how it uses its connection
     * @param work the work
     * @param <T> its result type
     * @return its future
     */
    <T> CompletableFuture<T> onReader(String what, Mode mode, ReadTask.Work<T> work) {
        return submit(readers, what, queryTimeout, mode, work, () -> true, null);
    }

    /**
     * Runs work on a read thread, with the query timeout as its limit, if it is still wanted when the thread takes it
     * up: {@code wanted} is asked once, before a connection is borrowed, and when it says no the task ends at once,
     * with an empty result.
     *
     * @param what the operation, for messages
     * @param mode how it uses its connection
     * @param wanted whether to go on, asked once as the task starts
     * @param work the work
     * @param <T> its result type
     * @return its future
     */
    <T> CompletableFuture<Optional<T>> onReaderIfWanted(
            String what, Mode mode, BooleanSupplier wanted, ReadTask.Work<T> work) {
        return submit(
                readers, what, queryTimeout, mode, (c, d) -> Optional.of(work.run(c, d)), wanted, Optional.empty());
    }

    /**
     * Whether tasks are still taken: false once {@link #stop} was called.
     *
     * @return true until the store stops
     */
    boolean accepting() {
        return !stopped.get();
    }

    /**
     * Runs work on the lease thread, in a transaction tried again on a deadlock or serialization failure.
     *
     * @param what the operation, for messages
     * @param limit its time limit
     * @param work the work
     * @param <T> its result type
     * @return its future
     */
    <T> CompletableFuture<T> onLeaseThread(String what, Duration limit, ReadTask.Work<T> work) {
        return submit(leases, what, limit, Mode.RETRIED_TRANSACTION, work, () -> true, null);
    }

    /**
     * Refuses new tasks, lets the queued ones finish until the deadline and fails the rest. Idempotent.
     *
     * @param deadline a {@link System#nanoTime()} value
     */
    void stop(long deadline) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        for (ThreadPoolExecutor pool : List.of(readers, leases)) {
            pool.shutdown();
        }
        for (ThreadPoolExecutor pool : List.of(readers, leases)) {
            if (!StoreThreads.awaitTermination(pool, deadline)) {
                // the queued tasks fail; the running ones are not interrupted but end by their own deadlines: an
                // interrupt that hits a thread inside an embedded H2 database's file I/O closes the database, for
                // every user of it in this JVM, the application's own pool included
                List<Runnable> queued = new ArrayList<>();
                pool.getQueue().drainTo(queued);
                for (Runnable task : queued) {
                    if (task instanceof ReadTask<?> read) {
                        read.fail(BatchWriter.closedException(read.what()));
                    }
                }
            }
        }
        deadlines.shutdownNow();
    }

    /** Runs a task's work on its borrowed connection, in the mode asked. */
    private <T> T run(
            StoreConnection borrowed, CompletableFuture<T> future, Mode mode, Duration limit, ReadTask.Work<T> work)
            throws SQLException {
        if (future.isDone()) {
            // failed by its deadline while it waited for the connection: a late lease request must not
            // take the lease for a member that has been told it failed
            throw new SQLTimeoutException("Abandoned at its deadline");
        }
        Connection connection = borrowed.connection();
        JdbcDialect d = dialects.of(connection);
        if (mode == Mode.AUTO_COMMIT) {
            return work.run(connection, d);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return JdbcTransactions.inTransaction(connection, () -> {
                    d.ensureDurableCommits(connection);
                    d.beginTransaction(connection, limit);
                    return work.run(connection, d);
                });
            } catch (SQLException e) {
                if (mode != Mode.RETRIED_TRANSACTION
                        || attempt == TRANSACTION_ATTEMPTS
                        || !JdbcTransactions.isTransient(e)
                        || future.isDone()) {
                    throw e;
                }
            }
        }
    }

    private <T> CompletableFuture<T> submit(
            ThreadPoolExecutor pool,
            String what,
            Duration limit,
            Mode mode,
            ReadTask.Work<T> work,
            BooleanSupplier wanted,
            @Nullable T whenUnwanted) {
        CompletableFuture<T> future = new CompletableFuture<>();
        if (stopped.get()) {
            future.completeExceptionally(BatchWriter.closedException(what));
            return future;
        }
        Duration twice = limit.multipliedBy(2);
        long deadline = System.nanoTime() + twice.toNanos();
        ReadTask<T> task = new ReadTask<>(what, future, limit, queryTimeout, () -> {
            if (whenUnwanted != null && !wanted.getAsBoolean()) {
                return whenUnwanted;
            }
            for (int attempt = 1; ; attempt++) {
                try {
                    return attempt(what, future, limit, mode, work, twice, deadline);
                } catch (SQLException e) {
                    // nothing done, and another connection may reach the database (a server that restarted or
                    // moved): within the deadline
                    if (!JdbcTransactions.connectionLost(e)
                            || future.isDone()
                            || !pauseBeforeRetry(attempt, deadline)) {
                        throw e;
                    }
                }
            }
        });
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(BatchWriter.closedException(what));
            return future;
        }
        failAtDeadline(future, () -> what, limit, Duration.ZERO);
        return future;
    }

    /**
     * Fails a future of a read-thread operation that is not done within twice the query timeout from now and
     * {@link #SERVED_TOGETHER_GRACE} more, whatever the database does: the deadline of an operation that waits to be
     * served by one of {@link #onReader}'s tasks with others ({@link CoalescedTasks}). The grace lets the task that
     * took it, started at about the same time and bound by its own deadline, fail it first with its own reason.
     *
     * @param future the operation's future
     * @param what the operation, for the message (called only if the deadline passes)
     */
    void failAtDeadline(CompletableFuture<?> future, Supplier<String> what) {
        failAtDeadline(future, what, queryTimeout, SERVED_TOGETHER_GRACE);
    }

    private void failAtDeadline(CompletableFuture<?> future, Supplier<String> what, Duration limit, Duration grace) {
        Duration twice = limit.multipliedBy(2);
        try {
            ScheduledFuture<?> timeout = deadlines.schedule(
                    () -> future.completeExceptionally(new ShardingException(
                            "The store did not complete the " + what.get() + " within " + StoreTimeouts.format(twice)
                                    + " (twice its time limit; " + StoreTimeouts.limit(limit, queryTimeout)
                                    + "): the database does not answer, or no connection is free")),
                    twice.plus(grace).toNanos(),
                    TimeUnit.NANOSECONDS);
            future.whenComplete((result, failure) -> timeout.cancel(false));
        } catch (RejectedExecutionException e) {
            // stopping: the task fails or finishes with the store
        }
    }

    /** One try of a task's work, on a connection of its own. */
    private <T> T attempt(
            String what,
            CompletableFuture<T> future,
            Duration limit,
            Mode mode,
            ReadTask.Work<T> work,
            Duration twice,
            long deadline)
            throws SQLException {
        StoreConnection borrowed;
        try {
            borrowed = StoreConnection.open(connections, twice, deadline, twice);
        } catch (SQLException e) {
            onFailure.run();
            throw e;
        }
        // watched until the connection is back in the pool, which may ask the database to reset it
        Runnable disarm = watchdog.arm(borrowed, twice, what);
        try (borrowed) {
            try {
                return run(borrowed, future, mode, limit, work);
            } catch (SQLException e) {
                onFailure.run();
                throw borrowed.explain(e);
            }
        } finally {
            disarm.run();
        }
    }

    /**
     * Waits before a task whose connection broke tries another: 50 ms, doubling up to half a second. False, without
     * waiting, when the wait would end past the deadline, or when the store stops.
     */
    private boolean pauseBeforeRetry(int attempt, long deadline) {
        long pause = StoreTimeouts.retryPauseNanos(attempt, deadline);
        if (pause < 0 || stopped.get()) {
            return false;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(pause);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the store stops
            return false;
        }
    }
}
