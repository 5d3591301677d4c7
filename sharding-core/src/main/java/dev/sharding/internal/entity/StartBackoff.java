package dev.sharding.internal.entity;

import dev.sharding.BufferFullException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.FailureKind;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An entity whose start failed (its creation threw, or its stored state could not be read) and that waits to try
 * again: the message that started it waits in the cell, later ones in its mailbox, at most {@code buffer-size} of them
 * (beyond, asks fail with {@link BufferFullException} and tells are dropped); asks that wait longer than their
 * timeout fail at the asker with an {@link dev.sharding.AskTimeoutException}. The first retry comes after
 * {@value #FIRST_MILLIS} ms and the wait doubles, up to {@code sharding.entity-restart-backoff}. A stop of the shard
 * (handoff, drop, node stop) cuts the wait short: the waiting messages then fail with the start's failure, and the
 * stop goes on at once instead of waiting for the handoff timeout (with a
 * {@link dev.sharding.StoreUnavailableException} when the store could not read the state, an
 * {@link dev.sharding.EntityException} when the creation threw).
 *
 * <p>The cell holds one while its start keeps failing, and drops it once the entity started.
 */
public final class StartBackoff {

    private static final Logger log = LoggerFactory.getLogger(StartBackoff.class);

    /** The first wait, in milliseconds. */
    static final long FIRST_MILLIS = 100;

    private final EntityCell cell;

    private final int bound;

    private final AtomicInteger waiting = new AtomicInteger();

    private final AtomicBoolean woken = new AtomicBoolean();

    private volatile boolean stopRequested;

    private int attempts;

    private @Nullable Throwable lastFailure;

    /** The last attempt failed because the store could not read the entity's state. */
    private boolean storeFailed;

    private @Nullable ScheduledFuture<?> timer;

    StartBackoff(EntityCell cell, int bound) {
        this.cell = cell;
        this.bound = bound;
    }

    /**
     * How long the wait before an attempt is.
     *
     * @param attempt the failed attempts so far, at least 1
     * @param max the longest wait
     * @return the wait in milliseconds
     */
    public static long delayMillis(int attempt, Duration max) {
        long delay = FIRST_MILLIS << Math.min(attempt - 1, 30);
        return Math.max(1, Math.min(delay, max.toMillis()));
    }

    /**
     * The start failed (again): waits, then resumes the cell, which tries again. Entity thread.
     *
     * @param failure why
     * @param byStore whether the store failed to read the entity's state (rather than its creation failing)
     * @param scheduler where the wait is timed
     * @param max the longest wait
     * @return false when the shard stops: no wait, the message fails ({@link #failStopping})
     */
    boolean failed(Throwable failure, boolean byStore, ScheduledExecutorService scheduler, Duration max) {
        attempts++;
        lastFailure = failure;
        storeFailed = byStore;
        if (stopRequested) {
            return false;
        }
        long delay = delayMillis(attempts, max);
        if (attempts == 1 || Integer.bitCount(attempts) == 1) {
            log.warn(
                    "Starting entity [{}/{}] failed (attempt {}); trying again in {} ms, {} messages wait",
                    cell.typeName(),
                    cell.entityId(),
                    attempts,
                    delay,
                    waiting.get() + 1,
                    failure);
        }
        woken.set(false);
        try {
            timer = scheduler.schedule(this::wake, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopped) {
            // a scheduler that refuses once it stopped; the node's own drops the task instead (below)
        }
        if (scheduler.isShutdown()) {
            stopRequested = true; // the node stopped, and its timer will not run: the waiting messages fail
            wake();
        }
        if (stopRequested) {
            wake(); // a stop came while the wait was set up
        }
        return true;
    }

    /** Ends the wait now: the cell runs again. Any thread; once per wait. */
    void wake() {
        if (woken.compareAndSet(false, true)) {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            cell.resume();
        }
    }

    /**
     * A delivery was put in the mailbox while the start waits. Any thread.
     *
     * @return false when it is one too many: the caller takes it back and {@link #reject}s it
     */
    boolean offered(Delivery delivery) {
        if (delivery.message() instanceof Signal.Stop) {
            stopRequested = true;
            wake();
            return true;
        }
        if (delivery.message() instanceof Signal) {
            return true;
        }
        return waiting.incrementAndGet() <= bound;
    }

    /** Fails a delivery that did not fit. */
    void reject(Delivery delivery) {
        waiting.decrementAndGet();
        String why = "Entity [" + cell.typeName() + "/" + cell.entityId() + "] could not start (" + describe()
                + ") and already has " + bound + " messages waiting (sharding.buffer-size)";
        if (delivery.sink().isTell()) {
            log.warn("Dropped a tell: {}", why);
        }
        delivery.sink().fail(FailureKind.BUFFER_FULL, BufferFullException.class.getName(), why);
    }

    /** Whether the shard stops: the waiting messages fail instead of trying again. */
    boolean stopRequested() {
        return stopRequested;
    }

    /** The shard stops (a stop signal was already in the mailbox when the first attempt failed). */
    void requestStop() {
        stopRequested = true;
    }

    /** Fails a waiting message because the shard stops while the entity cannot start. Entity thread. */
    void failStopping(ReplySink sink) {
        waiting.decrementAndGet();
        Throwable f = lastFailure;
        sink.fail(
                storeFailed ? FailureKind.STORE_FAILED : FailureKind.ENTITY_FAILED,
                f == null ? "ShardingException" : f.getClass().getName(),
                "Entity [" + cell.typeName() + "/" + cell.entityId() + "] could not start (" + describe()
                        + ") and its shard stopped on " + cell.nodeName() + "; the message had no effect");
    }

    /** The entity started: the wait is over. Entity thread. */
    void started() {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        if (attempts > 0) {
            log.info("Entity [{}/{}] started after {} failed attempts", cell.typeName(), cell.entityId(), attempts);
        }
    }

    /** The shard stopped: no more attempts. Entity thread. */
    void stopped() {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
    }

    /** How many start attempts failed. */
    int attempts() {
        return attempts;
    }

    private String describe() {
        Throwable f = lastFailure;
        return attempts + " attempts, last: " + (f == null ? "unknown" : f.toString());
    }
}
