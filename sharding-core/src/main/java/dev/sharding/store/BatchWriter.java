package dev.sharding.store;

import dev.sharding.ShardingException;
import dev.sharding.spi.ShardingMetrics;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>The writer runs the loop and the retries of a transaction; its parts each do one job: {@link WriteQueue} (the
 * queue and the linger), {@link HeldConnection} (the connection kept between batches), {@link WriteSweep} (the write
 * deadline, and the writes that fail by it), {@link DeferredOperations} (what waits for a held shard) and
 * {@link WriterRecord} (counters, and the pauses after failures).
 */
final class BatchWriter {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final int TRANSACTION_ATTEMPTS = 3;

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

    private final Dialects dialects;

    private final Duration queryTimeout;

    private final ExecutorService completer =
            Executors.newSingleThreadExecutor(StoreThreads.factory("sharding-store-completion-"));

    private final CountDownLatch stopping = new CountDownLatch(1);

    private final WriteQueue queue;

    private volatile boolean abandoned;

    /** The connection kept between batches while work is queued. */
    private final HeldConnection held;

    /** The counters of its transactions, and the streak of failures that sets its pauses. */
    private final WriterRecord record = new WriterRecord(stopping);

    /** Told of every failed transaction: the database may have moved ({@link JdbcDialect#mayHaveMoved()}). */
    private final Runnable onFailure;

    /** Finds out whether a transaction whose commit got no answer went through. */
    private final CommitCheck commitCheck;

    /** The write deadline: fails the writes that cannot be committed in time. */
    private final WriteSweep sweep;

    /** Operations the last transaction left for later; they go first into the next batch. */
    private final DeferredOperations deferred = new DeferredOperations();

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
        this.onFailure = onFailure;
        this.queue = new WriteQueue(stopping, maxBatchSize, batchLinger);
        this.dialects = dialects;
        this.queryTimeout = queryTimeout;
        this.sweep = new WriteSweep(queryTimeout, queue.operations(), this::completeLater);
        this.held = new HeldConnection(connections, dialects, watchdog, queryTimeout, sweep);
        this.commitCheck = new CommitCheck(connections, dialects, watchdog, queryTimeout);
        StoreThreads.factory("sharding-store-writer-").newThread(this::run).start();
        long period = Math.max(10, Math.min(250, queryTimeout.toMillis() / 4));
        watchdog.every(Duration.ofMillis(period), sweep::sweep);
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
        return queue.submit(op, future);
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
        queue.stop(stop);
        boolean finished = StoreThreads.await(stop.future(), deadline);
        if (!finished) {
            LOG.warn("The sharding store's writer did not finish its queued work in time; failing the rest");
            abandoned = true;
            queue.failQueued();
            // failQueued took the first Stop too: give the writer another to find when its transaction returns
            queue.stop(new StoreOperation.Stop(new CompletableFuture<>()));
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
        return record.statistics();
    }

    private void run() {
        List<StoreOperation> drained = new ArrayList<>();
        StoreOperation.@Nullable Stop stop = null;
        while (stop == null && !abandoned) {
            if (sweep.unanswered() && stopping.getCount() != 0 && !databaseAnswers()) {
                continue;
            }
            try {
                queue.take(drained, deferred);
            } catch (InterruptedException e) {
                // nothing interrupts this thread on purpose (an interrupted H2 closes its files): carry on
                drained.clear();
                continue;
            }
            List<StoreOperation.Batched> batch = new ArrayList<>(drained.size());
            for (StoreOperation op : drained) {
                if (op instanceof StoreOperation.Stop s) {
                    stop = s;
                } else if (op instanceof StoreOperation.Batched change) {
                    if (stop != null || abandoned) {
                        deferred.remove(change);
                        change.future().completeExceptionally(closedException(change.describe()));
                    } else if (!sweep.expired(change, deferred::remove)) {
                        batch.add(change);
                    }
                }
            }
            drained.clear();
            if (!batch.isEmpty()) {
                commit(new WriteBatch(batch, !deferred.isEmpty()));
            }
        }
        held.giveBack();
        queue.failQueued();
        deferred.failAll(this::completeLater);
        if (stop != null) {
            stop.future().complete(null);
        }
    }

    private void commit(WriteBatch batch) {
        long deadline = sweep.busy();
        @Nullable Exception failure = null;
        // nothing of the batch is applied until its transaction begins: till then the sweep may fail it
        sweep.waiting(batch);
        for (int attempt = 1; ; attempt++) {
            boolean begun = false;
            try {
                Connection connection = held.borrow();
                if (!sweep.begin(batch)) {
                    // failed by the sweep while the writer waited for the connection: not to be written any more
                    deferred.clear();
                    sweep.idle();
                    if (queue.isEmpty()) {
                        held.giveBack();
                    }
                    return;
                }
                begun = true;
                held.watchTransaction("write transaction of " + batch.size() + " operations");
                JdbcDialect dialect = dialects.of(connection);
                TimeLimits.Start limits = held.limits();
                @SuppressWarnings("NullAway") // no result: Void
                ReadTask.Body<Void> write = () -> {
                    batch.execute(connection, dialect, limits);
                    return null;
                };
                try {
                    JdbcTransactions.inTransaction(connection, write);
                } finally {
                    held.disarm();
                }
                succeeded(batch);
                return;
            } catch (SQLException e) {
                failure = held.giveBackAfter(e);
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
                    sweep.waiting(batch); // rolled back: the sweep may fail it again until it begins
                } else if (sweep.sweptAway(batch)) {
                    deferred.clear(); // failed by the sweep meanwhile
                    sweep.idle();
                    return;
                }
            } catch (RuntimeException e) {
                held.giveBack();
                failure = e;
                break;
            }
        }
        sweep.done();
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
     * While the database does not answer ({@link WriteSweep#unanswered()}): asks it one trivial statement
     * ({@link HeldConnection#checkAnswers()}), under the write deadline, rather than try a caller's write on it. No write then waits a deadline for a database known to be
     * silent (nor do the messages of its entity queued behind it); the sweep fails the writes that arrive meanwhile,
     * unapplied. True when the database answered, and the writer takes writes again; else it has paused, as after a
     * failed transaction.
     */
    private boolean databaseAnswers() {
        sweep.busy();
        try {
            held.checkAnswers();
            sweep.unanswered(false);
            sweep.idle();
            if (queue.isEmpty()) {
                held.giveBack();
            }
            return true;
        } catch (SQLException e) {
            return checkFailed(held.giveBackAfter(e));
        } catch (RuntimeException e) {
            held.giveBack();
            return checkFailed(e);
        }
    }

    /** The check of a silent database failed: the writer pauses before the next, as after a failed transaction. */
    private boolean checkFailed(Exception failure) {
        onFailure.run();
        // a database that answers with an error is asked by the writes, which fail with its reason
        sweep.unanswered(JdbcTransactions.unreachable(failure), failure);
        sweep.idle();
        record.checkFailed(failure);
        return false;
    }

    /** @param value told of every transaction's size from now on */
    void recordBatchesIn(ShardingMetrics value) {
        record.recordBatchesIn(value);
    }

    /** The batch's transaction committed: keeps what it left for later and completes the rest. */
    private void succeeded(WriteBatch batch) {
        List<StoreOperation.Batched> left = batch.deferred();
        deferred.keep(left);
        // decided before the callers hear of the commit, so that what they do next finds the connection back
        boolean idle = queue.isEmpty() && deferred.isEmpty();
        sweep.idle();
        record.committed(batch.size() - left.size());
        completeLater(batch::complete);
        sweep.unanswered(false);
        if (idle) {
            held.giveBack();
        }
    }

    private void failed(WriteBatch batch, @Nullable Exception failure) {
        deferred.clear(); // every one of them was in the batch
        record.failed(batch.size(), failure);
        String reason = StoreTimeouts.reason(failure, queryTimeout, queryTimeout);
        // decided before the callers hear of the failure: what they send next must not be tried on the database
        sweep.unanswered(JdbcTransactions.unreachable(failure), failure);
        completeLater(() -> batch.fail(reason, failure));
        record.pauseAfterFailure();
    }

    private void completeLater(Runnable completion) {
        try {
            completer.execute(completion);
        } catch (RejectedExecutionException e) {
            completion.run();
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
