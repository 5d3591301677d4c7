package dev.sharding.store;

import dev.sharding.spi.ShardingMetrics;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the transactions of a {@link BatchWriter} came to: the counters of its statistics and metrics, and the streak
 * of failures that sets how long the writer pauses before it tries again (longer, up to a second, while failures go
 * on, rather than spin through the queue) and what it logs (the first failure of a streak, and its end). The counters
 * are read from any thread; only the writer thread records.
 */
final class WriterRecord {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    private static final long FIRST_FAILURE_PAUSE_MILLIS = 10;

    private static final long MAX_FAILURE_PAUSE_MILLIS = 1000;

    /**
     * The longest pause between two checks of a database that does not answer: a check is one trivial statement, and
     * the writes fail until one passes, so the writer looks often.
     */
    private static final long MAX_CHECK_PAUSE_MILLIS = 250;

    private final AtomicLong batches = new AtomicLong();

    private final AtomicLong operations = new AtomicLong();

    private final AtomicLong failedBatches = new AtomicLong();

    private final AtomicInteger largestBatch = new AtomicInteger();

    /** Ends a pause when the writer stops. */
    private final CountDownLatch stopping;

    /** Told of every transaction's size. */
    private volatile ShardingMetrics metrics = ShardingMetrics.NONE;

    /** Failed transactions (and checks) in a row; only the writer thread uses it. */
    private int failureStreak;

    /**
     * Creates the record of a writer.
     *
     * @param stopping counted down when the writer stops, which ends its pauses
     */
    WriterRecord(CountDownLatch stopping) {
        this.stopping = stopping;
    }

    /** @param value told of every transaction's size from now on */
    void recordBatchesIn(ShardingMetrics value) {
        metrics = value;
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
     * A transaction committed.
     *
     * @param applied how many operations it applied (those left for later are not)
     */
    void committed(int applied) {
        metrics.storeBatch(applied);
        batches.incrementAndGet();
        operations.addAndGet(applied);
        largestBatch.accumulateAndGet(applied, Math::max);
        if (failureStreak > 0) {
            LOG.info("Store transactions succeed again, after {} failed", failureStreak);
            failureStreak = 0;
        }
    }

    /**
     * A transaction failed, and every operation of it with it; the writer then pauses ({@link #pauseAfterFailure()}).
     *
     * @param size how many operations it held
     * @param failure what went wrong
     */
    void failed(int size, @Nullable Exception failure) {
        metrics.storeBatch(size);
        failedBatches.incrementAndGet();
        if (failureStreak++ == 0) {
            LOG.warn(
                    "Store transaction of {} operations failed; failing all of them, and the next ones until the"
                            + " database answers again",
                    size,
                    failure);
        } else {
            LOG.debug("Store transaction of {} operations failed too: {}", size, String.valueOf(failure));
        }
    }

    /** Pauses the writer after a failed transaction. */
    void pauseAfterFailure() {
        pauseAfterFailure(MAX_FAILURE_PAUSE_MILLIS);
    }

    /**
     * The check of a database that did not answer failed again; pauses the writer, briefly.
     *
     * @param failure what went wrong
     */
    void checkFailed(Exception failure) {
        if (failureStreak++ == 0) {
            LOG.warn("The database does not answer the store's writer", failure);
        } else {
            LOG.debug("The database does not answer the store's writer yet: {}", String.valueOf(failure));
        }
        pauseAfterFailure(MAX_CHECK_PAUSE_MILLIS);
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
}
