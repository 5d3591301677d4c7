package dev.sharding.store;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts the connection of a store call that passed its deadline when the driver cannot time out by itself (H2,
 * whose client waits for its server with no limit: a node serving the file that hangs, stopped or swapping, would
 * otherwise hold every other node's store threads for as long as it hangs). One thread for the store; the writer's
 * sweep of queued writes runs on it too. A connection whose driver has a network timeout (PostgreSQL) is not watched:
 * it fails by itself.
 *
 * <p>A write transaction that is still running after {@link #onLongCalls a while} also runs a hook, again and again
 * at that interval until it ends ({@link #watchLongCall}): the store looks then for a session that holds up its
 * transaction (see {@link IdleTransactionSweep}), without looking at all while its transactions are quick.
 */
final class StoreWatchdog {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** Does nothing: what {@link #arm} returns for a connection that needs no watching. */
    static final Runnable DISARMED = () -> {};

    private final ScheduledThreadPoolExecutor timer;

    private final AtomicLong aborted = new AtomicLong();

    /** Whether write transactions running long run a hook ({@link #onLongCalls}). */
    private volatile boolean watchingLongCalls;

    /** When the running write transaction began ({@link System#nanoTime()}), or {@link #NO_CALL}. */
    private volatile long callSince = NO_CALL;

    private static final long NO_CALL = Long.MIN_VALUE;

    /** Starts the watchdog's thread. */
    StoreWatchdog() {
        this.timer = new ScheduledThreadPoolExecutor(1, StoreThreads.factory("sharding-store-watchdog-"));
        this.timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Watches a borrowed connection: unless disarmed within the limit, its connection is aborted
     * ({@link StoreConnection#abort()}), so that the thread using it gets an error instead of waiting on.
     *
     * @param connection the connection
     * @param limit how long the call may take
     * @param what the call, for the log ("write transaction of 12 operations")
     * @return what disarms it; call it when the call is done, whatever its outcome
     */
    Runnable arm(StoreConnection connection, Duration limit, String what) {
        if (connection.timesOutByItself()) {
            return DISARMED;
        }
        try {
            ScheduledFuture<?> abort = timer.schedule(
                    () -> {
                        aborted.incrementAndGet();
                        LOG.warn(
                                "The sharding store's {} got no answer from the database within {} (twice {}):"
                                        + " aborting its connection",
                                what,
                                StoreTimeouts.format(limit),
                                StoreTimeouts.SETTING);
                        connection.abort();
                    },
                    limit.toNanos(),
                    TimeUnit.NANOSECONDS);
            return () -> abort.cancel(false);
        } catch (RejectedExecutionException e) {
            return DISARMED; // stopping
        }
    }

    /**
     * Marks the start of a write transaction on a connection, for the {@link #onLongCalls long-call hook}, unless the
     * connection's driver times out by itself (PostgreSQL, whose server limits a transaction's idle time itself).
     * Transactions are the writer's, one at a time.
     *
     * @param connection the transaction's connection
     * @return what marks its end; call it when the transaction is done, whatever its outcome
     */
    Runnable watchLongCall(StoreConnection connection) {
        if (!watchingLongCalls || connection.timesOutByItself()) {
            return DISARMED;
        }
        long started = System.nanoTime();
        callSince = started;
        return () -> {
            if (callSince == started) {
                callSince = NO_CALL;
            }
        };
    }

    /**
     * Makes the write transactions watched with {@link #watchLongCall} from now on run a hook once one has been
     * running for a while, and again at that interval until it ends. The watchdog looks at that interval, which costs
     * the transactions nothing but a time stamp each.
     *
     * @param after how long a transaction runs before the hook
     * @param hook what runs, on the watchdog's thread; must not block
     */
    void onLongCalls(Duration after, Runnable hook) {
        long afterNanos = after.toNanos();
        this.watchingLongCalls = true;
        every(after, () -> {
            long since = callSince;
            if (since != NO_CALL && System.nanoTime() - since >= afterNanos) {
                hook.run();
            }
        });
    }

    /**
     * Runs a task every period until {@link #stop()}.
     *
     * @param task the task; must not block
     * @param period how often
     */
    void every(Duration period, Runnable task) {
        timer.scheduleWithFixedDelay(task, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * How many connections the watchdog aborted.
     *
     * @return the count
     */
    long aborted() {
        return aborted.get();
    }

    /** Stops the thread; armed aborts are dropped. */
    void stop() {
        timer.shutdownNow();
    }
}
