package dev.sharding.store;

import dev.sharding.ShardingException;
import dev.sharding.spi.ShardingMetrics;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer side of a {@link JdbcShardingStore}: a queue and the one thread that drains it, committing each drain
 * as a {@link WriteBatch} in one transaction, and a completion thread that completes the batch's futures in commit
 * order. After a transaction of many operations (writes arriving from many callers at once) the writer lingers
 * up to the store's batch linger for more before it begins the next, until it holds as many as that one, so that
 * fewer, larger transactions carry the same writes. The writer keeps the connection it borrowed while more work is
 * queued and gives it back when the queue is empty, or when a transaction on it failed. A transaction is tried again
 * at once (up to three times in all) when the database reports a deadlock or serialization failure, and on another
 * connection, after a short pause, until the write deadline, when its connection broke or could not be opened before
 * any commit was sent ({@link JdbcTransactions#connectionLost}: a server that restarted or moved), and when its commit
 * got no answer but a row it wrote, read back, shows it was not committed ({@link CommitCheck}); any other failure
 * fails the batch (one that hit a time limit says which), and the writer pauses before the next one, longer (up to a
 * second) while failures go on, logging the first failure of a streak and its end. While the database does not answer
 * at all, the writer checks it with a trivial statement instead of trying writes, which fail at once meanwhile.
 *
 * <p>Operations of a shard whose rows another transaction holds (its previous owner, slow or cut off in the middle of
 * a write) are left out of the transaction by {@link WriteBatch} and kept here; they go first into every following
 * batch, or after a short pause when nothing else arrives, until their shard is free, or until the write deadline
 * (twice the query timeout) fails them unapplied. The other shards' writes go on meanwhile.
 */
final class BatchWriter {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final int TRANSACTION_ATTEMPTS = 3;

    /** A lingering writer stops waiting once its batch holds this many operations, however large the one before. */
    private static final int LINGER_UNTIL = 32;

    /** How often a lingering writer looks at its queue. */
    private static final long LINGER_SLICE_NANOS = 100_000;

    private static final long FIRST_FAILURE_PAUSE_MILLIS = 10;

    private static final long MAX_FAILURE_PAUSE_MILLIS = 1000;

    /**
     * The longest pause between two checks of a database that does not answer: a check is one trivial statement, and
     * the writes fail until one passes, so the writer looks often.
     */
    private static final long MAX_CHECK_PAUSE_MILLIS = 250;

    private static final long FIRST_DEFERRED_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private static final long MAX_DEFERRED_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Finds the dialect for a connection.
     */
    @FunctionalInterface
    interface Dialects {

        /**
         * The dialect of the connection's database.
         *
         * @param connection an open connection
         * @return its dialect
         * @throws SQLException when the database is not supported or cannot be asked
         */
        JdbcDialect of(Connection connection) throws SQLException;
    }

    private final ConnectionSource connections;

    private final int maxBatchSize;

    private final Dialects dialects;

    private final Duration queryTimeout;

    private final long lingerNanos;

    /** The size of the writer's previous batch; only the writer thread uses it. */
    private int lastBatch;

    private final BlockingQueue<StoreOperation> queue = new LinkedBlockingQueue<>();

    private final ExecutorService completer =
            Executors.newSingleThreadExecutor(StoreThreads.factory("sharding-store-completion-"));

    private final CountDownLatch stopping = new CountDownLatch(1);

    private volatile boolean abandoned;

    /** The connection kept between batches while work is queued; only the writer thread uses it. */
    private @Nullable StoreConnection held;

    /** Sets the time limits of each transaction on the held connection; only the writer thread uses it. */
    private TimeLimits.@Nullable Start limits;

    /** Failed transactions in a row; only the writer thread uses it. */
    private int failureStreak;

    private final AtomicLong batches = new AtomicLong();

    private final AtomicLong operations = new AtomicLong();

    private final AtomicLong failedBatches = new AtomicLong();

    private final AtomicInteger largestBatch = new AtomicInteger();

    private final StoreWatchdog watchdog;

    /** Told of every failed transaction: the database may have moved ({@link JdbcDialect#mayHaveMoved()}). */
    private final Runnable onFailure;

    /** How long the writer may take over a batch, connection included, before the queued writes fail. */
    private final Duration writeDeadline;

    /** Finds out whether a transaction whose commit got no answer went through. */
    private final CommitCheck commitCheck;

    /** What disarms the watchdog of the held connection's transaction; only the writer thread uses it. */
    private Runnable armed = StoreWatchdog.DISARMED;

    /**
     * Whether the writer's last transaction, or its last check, failed because the database did not answer at all
     * ({@link StoreTimeouts#unanswered}); until the database answers a check ({@link #databaseAnswers()}) the writer
     * takes no write, and the writes queued meanwhile fail at once ({@link #sweep()}) rather than each wait for a
     * database that does not answer.
     */
    private volatile boolean unanswered;

    /** When the writer began its current batch ({@link System#nanoTime()}), 0 while it has none. */
    private volatile long busySince;

    /** The batch the writer holds while it waits for a connection, which {@link #sweep()} may fail instead. */
    private final AtomicReference<@Nullable WriteBatch> unstarted = new AtomicReference<>();

    /** Told of every transaction's size. */
    private volatile ShardingMetrics metrics = ShardingMetrics.NONE;

    /**
     * Operations the last transaction left for later ({@link WriteBatch#deferred()}), in queue order; only the writer
     * thread uses them. They go first into the next batch.
     */
    private final java.util.LinkedHashSet<StoreOperation> deferred = new java.util.LinkedHashSet<>();

    /** How long the writer waits for new work before it tries deferred operations again; only the writer uses it. */
    private long deferredPauseNanos = FIRST_DEFERRED_PAUSE_NANOS;

    /**
     * Creates the writer and starts its thread.
     *
     * @param connections where to commit
     * @param maxBatchSize the most operations per transaction
     * @param batchLinger the longest to wait for more operations before a transaction, after a large one
     * @param dialects finds the database's dialect
     * @param queryTimeout the longest a statement may run; the network timeout is twice as long
     * @param watchdog aborts connections that pass their deadline, and runs the sweep of late writes
     * @param onFailure told of every failed transaction
     */
    BatchWriter(
            ConnectionSource connections,
            int maxBatchSize,
            Duration batchLinger,
            Dialects dialects,
            Duration queryTimeout,
            StoreWatchdog watchdog,
            Runnable onFailure) {
        this.connections = connections;
        this.onFailure = onFailure;
        this.maxBatchSize = maxBatchSize;
        this.lingerNanos = batchLinger.toNanos();
        this.dialects = dialects;
        this.queryTimeout = queryTimeout;
        this.watchdog = watchdog;
        this.writeDeadline = queryTimeout.multipliedBy(2);
        this.commitCheck = new CommitCheck(connections, dialects, watchdog, queryTimeout);
        StoreThreads.factory("sharding-store-writer-").newThread(this::run).start();
        long sweep = Math.max(10, Math.min(250, queryTimeout.toMillis() / 4));
        watchdog.every(Duration.ofMillis(sweep), this::sweep);
    }

    /**
     * Queues an operation, or fails it when the writer is stopping.
     *
     * @param op the operation
     * @param future its future
     * @param <T> the future's type
     * @return the future
     */
    <T> CompletableFuture<T> submit(StoreOperation op, CompletableFuture<T> future) {
        if (stopping.getCount() == 0) {
            future.completeExceptionally(closedException(op.describe()));
            return future;
        }
        queue.add(op);
        if (stopping.getCount() == 0 && queue.remove(op)) {
            // stop() raced with this call and may already have stopped the writer
            future.completeExceptionally(closedException(op.describe()));
        }
        return future;
    }

    /**
     * Refuses new operations, lets the writer commit what is queued, and stops it; fails what is still queued at
     * the deadline. Completions of committed batches still run.
     *
     * @param deadline a {@link System#nanoTime()} value
     * @return whether the writer finished in time
     */
    boolean stop(long deadline) {
        stopping.countDown();
        StoreOperation.Stop stop = new StoreOperation.Stop(new CompletableFuture<>());
        queue.add(stop);
        boolean finished = StoreThreads.await(stop.future(), deadline);
        if (!finished) {
            LOG.warn("The sharding store's writer did not finish its queued work in time; failing the rest");
            abandoned = true;
            failQueued();
            // failQueued took the first Stop too: give the writer another to find when its transaction returns
            queue.add(new StoreOperation.Stop(new CompletableFuture<>()));
        }
        completer.shutdown();
        StoreThreads.awaitTermination(completer, deadline);
        return finished;
    }

    /** @return how many operations wait in the queue */
    int queued() {
        return queue.size();
    }

    /**
     * The counters so far.
     *
     * @return a snapshot
     */
    JdbcStoreStatistics statistics() {
        return new JdbcStoreStatistics(batches.get(), operations.get(), failedBatches.get(), largestBatch.get());
    }

    /**
     * Waits, in short slices, for more operations to join the batch, until it holds as many as the writer's previous
     * transaction (the callers whose writes made that one are the ones coming back; waiting for more only adds to
     * every write's time), or {@link #LINGER_UNTIL}, or the linger is over; a {@link StoreOperation.Stop} ends the
     * wait at once.
     */
    private void linger(List<StoreOperation> drained) {
        long deadline = System.nanoTime() + lingerNanos;
        int until = Math.min(lastBatch, Math.min(LINGER_UNTIL, maxBatchSize));
        while (drained.size() < until && !(drained.get(drained.size() - 1) instanceof StoreOperation.Stop)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            LockSupport.parkNanos(Math.min(left, LINGER_SLICE_NANOS));
            queue.drainTo(drained, maxBatchSize - drained.size());
        }
    }

    private void run() {
        List<StoreOperation> drained = new ArrayList<>();
        StoreOperation.@Nullable Stop stop = null;
        while (stop == null && !abandoned) {
            if (unanswered && stopping.getCount() != 0 && !databaseAnswers()) {
                continue;
            }
            try {
                if (deferred.isEmpty()) {
                    drained.add(queue.take());
                } else {
                    // operations of a shard another transaction holds: try them again after a pause, or with the
                    // next work that arrives
                    drained.addAll(deferred);
                    @Nullable StoreOperation next = queue.poll(deferredPauseNanos, TimeUnit.NANOSECONDS);
                    if (next != null) {
                        drained.add(next);
                    }
                }
            } catch (InterruptedException e) {
                // nothing interrupts this thread on purpose (an interrupted H2 closes its files): carry on
                drained.clear();
                continue;
            }
            queue.drainTo(drained, Math.max(0, maxBatchSize - drained.size()));
            if (lingerNanos > 0 && lastBatch >= JdbcStoreSettings.LINGER_AFTER_BATCH_OF) {
                linger(drained);
            }
            lastBatch = drained.size();
            List<StoreOperation> batch = new ArrayList<>(drained.size());
            for (StoreOperation op : drained) {
                if (op instanceof StoreOperation.Stop s) {
                    stop = s;
                } else if (stop != null || abandoned) {
                    deferred.remove(op);
                    op.future().completeExceptionally(closedException(op.describe()));
                } else if (!expired(op)) {
                    batch.add(op);
                }
            }
            drained.clear();
            if (!batch.isEmpty()) {
                commit(new WriteBatch(batch, !deferred.isEmpty()));
            }
        }
        giveBack();
        failQueued();
        failDeferred();
        if (stop != null) {
            stop.future().complete(null);
        }
    }

    /**
     * Fails an operation queued for longer than the write deadline, unapplied, rather than begin a transaction for it:
     * its caller has given up on it long ago, and a node whose link to the database is slow would otherwise go on
     * holding its shards' rows with writes nobody waits for (after it lost the shards, those of their new owner
     * wait behind them). True when it did.
     */
    private boolean expired(StoreOperation op) {
        long queued = op.queuedNanos();
        if (queued == 0 || System.nanoTime() - queued < writeDeadline.toNanos()) {
            return false;
        }
        boolean heldBack = deferred.remove(op);
        String deadline = " for more than " + StoreTimeouts.format(writeDeadline) + " (twice "
                + StoreTimeouts.limit(queryTimeout, queryTimeout) + ")";
        String reason;
        if (heldBack) {
            reason = "another transaction held the rows of its shard (the shard's previous owner, slow or cut off"
                    + " in the middle of a write?)" + deadline;
        } else if (unanswered) {
            // the same cause the sweep reports, whichever of the two finds the write first
            reason = "the database does not answer: the write waited for the store's writer" + deadline;
        } else {
            reason = "it waited for the store's writer (the database, or the link to it, is slow)" + deadline;
        }
        completeLater(() -> op.future()
                .completeExceptionally(new ShardingException(
                        "The store could not apply the " + op.describe() + ": " + reason + "; it was not applied")));
        return true;
    }

    /** Fails every deferred operation: the writer stops. */
    private void failDeferred() {
        List<StoreOperation> failing = new ArrayList<>(deferred);
        deferred.clear();
        if (!failing.isEmpty()) {
            completeLater(
                    () -> failing.forEach(op -> op.future().completeExceptionally(closedException(op.describe()))));
        }
    }

    private void commit(WriteBatch batch) {
        busySince = System.nanoTime();
        long deadline = busySince + writeDeadline.toNanos();
        @Nullable Exception failure = null;
        // nothing of the batch is applied until its transaction begins: till then the sweep may fail it
        unstarted.set(batch);
        for (int attempt = 1; ; attempt++) {
            boolean begun = false;
            try {
                Connection connection = borrow();
                if (!unstarted.compareAndSet(batch, null)) {
                    // failed by the sweep while the writer waited for the connection: not to be written any more
                    deferred.clear();
                    busySince = 0;
                    if (queue.isEmpty()) {
                        giveBack();
                    }
                    return;
                }
                begun = true;
                if (armed == StoreWatchdog.DISARMED) {
                    armed = watchdog.arm(
                            Objects.requireNonNull(held),
                            writeDeadline,
                            "write transaction of " + batch.size() + " operations");
                }
                JdbcDialect dialect = dialects.of(connection);
                TimeLimits.Start start = Objects.requireNonNull(limits);
                @SuppressWarnings("NullAway") // no result: Void
                ReadTask.Body<Void> write = () -> {
                    batch.execute(connection, dialect, start);
                    return null;
                };
                try {
                    JdbcTransactions.inTransaction(connection, write);
                } finally {
                    disarm();
                }
                succeeded(batch);
                return;
            } catch (SQLException e) {
                StoreConnection failed = held;
                // the connection may be what failed: the next attempt borrows another
                giveBack();
                failure = failed == null ? e : failed.explain(e);
                onFailure.run();
                boolean again;
                WriteBatch.@Nullable Witness witness;
                if (JdbcTransactions.isTransient(e)) {
                    again = attempt < TRANSACTION_ATTEMPTS;
                } else if (JdbcTransactions.outcomeUnknown(failure) && (witness = batch.witness()) != null) {
                    // the commit got no answer: the row it wrote tells whether it went through
                    int first = attempt;
                    CommitCheck.Verdict verdict = commitCheck.check(
                            witness, deadline, a -> pauseBeforeAnotherConnection(first + (int) a - 1, deadline));
                    if (verdict == CommitCheck.Verdict.COMMITTED) {
                        succeeded(batch);
                        return;
                    }
                    again = verdict == CommitCheck.Verdict.NOT_COMMITTED;
                } else {
                    // nothing applied, and another connection may reach the database (a server that restarted or
                    // moved, as the embedded H2 file's does when the node serving it stops): within the deadline
                    again = JdbcTransactions.connectionLost(failure) && pauseBeforeAnotherConnection(attempt, deadline);
                }
                if (!again) {
                    break;
                }
                LOG.debug(
                        "Store transaction of {} operations failed before its commit (attempt {}); trying again: {}",
                        batch.size(),
                        attempt,
                        e.toString());
                if (begun) {
                    unstarted.set(batch); // rolled back: the sweep may fail it again until it begins
                } else if (unstarted.get() != batch) {
                    deferred.clear(); // failed by the sweep meanwhile
                    busySince = 0;
                    return;
                }
            } catch (RuntimeException e) {
                giveBack();
                failure = e;
                break;
            }
        }
        unstarted.set(null);
        busySince = 0;
        failed(batch, failure);
    }

    /**
     * Waits before a transaction that failed on its connection is tried on another: 50 ms, doubling up to half a
     * second. False, without waiting, when the wait would end past the deadline, or when the writer stops.
     */
    private boolean pauseBeforeAnotherConnection(int attempt, long deadline) {
        long pause = StoreTimeouts.retryPauseNanos(attempt, deadline);
        if (pause < 0) {
            return false;
        }
        try {
            return !stopping.await(pause, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            return false; // nothing interrupts the writer on purpose
        }
    }

    /**
     * While the database does not answer ({@link #unanswered}): asks it one trivial statement, under the write
     * deadline, rather than try a caller's write on it. No write then waits a deadline for a database known to be
     * silent (nor do the messages of its entity queued behind it); the sweep fails the writes that arrive meanwhile,
     * unapplied. True when the database answered, and the writer takes writes again; else it has paused, as after a
     * failed transaction.
     */
    private boolean databaseAnswers() {
        busySince = System.nanoTime();
        try {
            Connection connection = borrow();
            if (armed == StoreWatchdog.DISARMED) {
                armed = watchdog.arm(
                        Objects.requireNonNull(held), writeDeadline, "check that the database answers again");
            }
            try (Statement check = connection.createStatement()) {
                check.setQueryTimeout((int) Math.max(1, (queryTimeout.toMillis() + 999) / 1000));
                check.execute("SELECT 1");
            } finally {
                disarm();
            }
            connection.rollback();
            unanswered = false;
            busySince = 0;
            if (queue.isEmpty()) {
                giveBack();
            }
            return true;
        } catch (SQLException | RuntimeException e) {
            StoreConnection failed = held;
            giveBack();
            onFailure.run();
            Exception failure = e instanceof SQLException sql && failed != null ? failed.explain(sql) : e;
            // a database that answers with an error is asked by the writes, which fail with its reason
            unanswered = StoreTimeouts.unanswered(failure);
            busySince = 0;
            if (failureStreak++ == 0) {
                LOG.warn("The database does not answer the store's writer", failure);
            } else {
                LOG.debug("The database does not answer the store's writer yet: {}", String.valueOf(failure));
            }
            pauseAfterFailure(MAX_CHECK_PAUSE_MILLIS);
            return false;
        }
    }

    private void disarm() {
        armed.run();
        armed = StoreWatchdog.DISARMED;
    }

    /**
     * Fails the writes that cannot be committed in time, on the watchdog's thread: when the writer has spent more than
     * the write deadline on one batch (waiting for a connection, or in a transaction the watchdog is about to
     * abort), the writes still queued behind it and the batch that has not got its connection fail now, none of
     * them applied, rather than wait for a database that does not answer.
     */
    private void sweep() {
        long since = busySince;
        boolean late = since != 0 && System.nanoTime() - since >= writeDeadline.toNanos();
        if (!late && !unanswered) {
            return;
        }
        String reason = late
                ? "the database does not answer, or no connection is free: the store's writer has been"
                        + " waiting for it for more than " + StoreTimeouts.format(writeDeadline) + " (twice "
                        + StoreTimeouts.limit(queryTimeout, queryTimeout) + ")"
                : "the database does not answer: the store's last transaction got no answer within "
                        + StoreTimeouts.format(writeDeadline) + " (twice "
                        + StoreTimeouts.limit(queryTimeout, queryTimeout)
                        + "), and the writer takes writes again once the database answers it";
        // a batch the writer holds (it began before the database stopped answering) fails only when late
        @Nullable WriteBatch waiting = late ? unstarted.getAndSet(null) : null;
        if (waiting != null) {
            completeLater(() -> waiting.fail(reason, null));
        }
        List<StoreOperation> queued = new ArrayList<>();
        queue.drainTo(queued);
        List<StoreOperation> failing = new ArrayList<>(queued.size());
        for (StoreOperation op : queued) {
            if (op instanceof StoreOperation.Stop) {
                queue.add(op);
            } else {
                failing.add(op);
            }
        }
        if (!failing.isEmpty()) {
            completeLater(() -> {
                for (StoreOperation op : failing) {
                    op.future()
                            .completeExceptionally(new ShardingException("The store could not begin the "
                                    + op.describe() + ": " + reason + "; it was not applied"));
                }
            });
        }
    }

    /**
     * The writer's connection, borrowed when work arrives and kept, with auto-commit off, while more is queued: a
     * connection taken from the pool and given back for every transaction costs round trips (and, on H2, a rollback
     * that writes the file) that a steady stream of batches does not need. A connection newly borrowed is first made
     * to commit durably ({@link JdbcDialect#ensureDurableCommits}).
     */
    private Connection borrow() throws SQLException {
        StoreConnection c = held;
        if (c == null) {
            // no longer than the batch may take: the sweep fails it then, and the writer goes on with the next
            c = StoreConnection.open(
                    connections, queryTimeout.multipliedBy(2), busySince + writeDeadline.toNanos(), writeDeadline);
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

    /** Gives the writer's connection back to the pool, auto-commit on again, when it has one. */
    private void giveBack() {
        // the watch of the held connection ends with it, whatever ended its transaction
        disarm();
        StoreConnection c = held;
        if (c == null) {
            return;
        }
        held = null;
        // resetting the connection asks the database too (and so may the pool): watched, and counted as busy, so that
        // a database that stops answering now neither holds the writer nor the writes queued meanwhile
        boolean idle = busySince == 0;
        if (idle) {
            busySince = System.nanoTime();
        }
        Runnable release = watchdog.arm(c, writeDeadline, "release of the writer's connection");
        try (c) {
            c.connection().setAutoCommit(true);
        } catch (SQLException | RuntimeException e) {
            // a broken connection is the pool's to discard
            LOG.debug("Could not give the store writer's connection back cleanly: {}", e.toString());
        } finally {
            release.run();
            if (idle) {
                busySince = 0;
            }
        }
    }

    /** @param value told of every transaction's size from now on */
    void recordBatchesIn(ShardingMetrics value) {
        metrics = value;
    }

    /**
     * Keeps what the committed transaction left for later and sets the pause before they are tried again: longer
     * while nothing of them gets through.
     */
    private void keepDeferred(List<StoreOperation> left) {
        boolean noneThrough = !deferred.isEmpty() && new java.util.HashSet<>(left).containsAll(deferred);
        if (!left.isEmpty() && deferred.isEmpty()) {
            LOG.debug(
                    "{} store operations wait for shards whose rows another transaction holds: {}",
                    left.size(),
                    left.get(0).describe());
        }
        deferred.clear();
        deferred.addAll(left);
        if (left.isEmpty()) {
            deferredPauseNanos = FIRST_DEFERRED_PAUSE_NANOS;
        } else if (noneThrough) {
            deferredPauseNanos = Math.min(MAX_DEFERRED_PAUSE_NANOS, deferredPauseNanos * 2);
        }
    }

    /** The batch's transaction committed: keeps what it left for later and completes the rest. */
    private void succeeded(WriteBatch batch) {
        List<StoreOperation> left = batch.deferred();
        keepDeferred(left);
        // decided before the callers hear of the commit, so that what they do next finds the connection back
        boolean idle = queue.isEmpty() && deferred.isEmpty();
        busySince = 0;
        committed(batch, left.size());
        if (idle) {
            giveBack();
        }
    }

    private void committed(WriteBatch batch, int leftForLater) {
        int applied = batch.size() - leftForLater;
        metrics.storeBatch(applied);
        batches.incrementAndGet();
        operations.addAndGet(applied);
        largestBatch.accumulateAndGet(applied, Math::max);
        completeLater(batch::complete);
        unanswered = false;
        if (failureStreak > 0) {
            LOG.info("Store transactions succeed again, after {} failed", failureStreak);
            failureStreak = 0;
        }
    }

    private void failed(WriteBatch batch, @Nullable Exception failure) {
        deferred.clear(); // every one of them was in the batch
        metrics.storeBatch(batch.size());
        failedBatches.incrementAndGet();
        if (failureStreak++ == 0) {
            LOG.warn(
                    "Store transaction of {} operations failed; failing all of them, and the next ones until the"
                            + " database answers again",
                    batch.size(),
                    failure);
        } else {
            LOG.debug("Store transaction of {} operations failed too: {}", batch.size(), String.valueOf(failure));
        }
        String reason = StoreTimeouts.reason(failure, queryTimeout, queryTimeout);
        completeLater(() -> batch.fail(reason, failure));
        unanswered = StoreTimeouts.unanswered(failure);
        pauseAfterFailure(MAX_FAILURE_PAUSE_MILLIS);
    }

    /**
     * While the database is away, the writer pauses between tries, longer (up to the given pause) while failures go
     * on, rather than spin through the queue.
     */
    private void pauseAfterFailure(long maxMillis) {
        long pause = Math.min(maxMillis, FIRST_FAILURE_PAUSE_MILLIS << Math.min(failureStreak - 1, 7));
        try {
            stopping.await(pause, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            // nothing interrupts the writer on purpose; go on
        }
    }

    private void completeLater(Runnable completion) {
        try {
            completer.execute(completion);
        } catch (RejectedExecutionException e) {
            completion.run();
        }
    }

    private void failQueued() {
        List<StoreOperation> left = new ArrayList<>();
        queue.drainTo(left);
        for (StoreOperation op : left) {
            if (op instanceof StoreOperation.Stop s) {
                s.future().complete(null);
            } else {
                op.future().completeExceptionally(closedException(op.describe()));
            }
        }
    }

    /**
     * The failure of an operation that came too late or could not be done before the store closed.
     *
     * @param what the operation, as a noun phrase
     * @return the exception
     */
    static ShardingException closedException(String what) {
        return new ShardingException("The sharding store was closed before the " + what + " was done");
    }
}
