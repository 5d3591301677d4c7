package dev.sharding.internal;

import dev.sharding.internal.transport.SendingThreads;
import dev.sharding.spi.ShardingMetrics;
import java.io.Serial;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the node's own threads that must never be held for long (the control thread, the transport's threads where
 * they deliver frames, the store's threads where they complete writes into the node), and logs one WARN with the holder's stack, and counts it
 * ({@link ShardingMetrics#blockedThread}), each time one of them stays in one piece of work longer than the
 * {@code blocked-thread-threshold}.
 *
 * <p>A watched thread marks its work: {@link #enter} stores the time it started and {@link #exit} clears it, two
 * writes to a field of its own. A daemon checker looks at the marks every fifth of the threshold; a thread held past
 * the threshold is reported once for that piece of work, however long it stays held.
 */
final class BlockedThreads {

    private static final Logger log = LoggerFactory.getLogger(BlockedThreads.class);

    /** The role of the control thread, as the meter's tag. */
    static final String CONTROL = "control";

    /** The role of the transport's threads delivering frames, as the meter's tag. */
    static final String TRANSPORT = "transport";

    /** The role of the store's threads completing writes into the node, as the meter's tag. */
    static final String STORE = "store";

    /** The prefix of the names of the JDBC store's threads. */
    private static final String STORE_THREADS = "sharding-store-";

    /** Marks a thread that {@link #storeThread} does not watch. */
    private static final Watched UNWATCHED = new Watched(new Thread(() -> {}), "none");

    /** One watched thread. */
    static final class Watched {

        final Thread thread;

        final String role;

        /** When its current piece of work started ({@link System#nanoTime}, never 0), or 0 while idle. */
        volatile long since;

        /** The start of the piece of work last reported; the checker's only. */
        long reported;

        Watched(Thread thread, String role) {
            this.thread = thread;
            this.role = role;
        }
    }

    private final long thresholdNanos;

    private final ShardingMetrics metrics;

    private final Supplier<String> nodeName;

    private final CopyOnWriteArrayList<Watched> watched = new CopyOnWriteArrayList<>();

    private final ThreadLocal<@Nullable Watched> transportThreads = new ThreadLocal<>();

    private final ThreadLocal<@Nullable Watched> storeThreads = new ThreadLocal<>();

    private volatile boolean stopped;

    /**
     * @param threshold how long a piece of work may hold a watched thread before it is reported; zero turns the
     *     checker off
     * @param metrics where reports are counted
     * @param nodeName the node's name, for the log
     */
    BlockedThreads(Duration threshold, ShardingMetrics metrics, Supplier<String> nodeName) {
        this.thresholdNanos = threshold.toNanos();
        this.metrics = metrics;
        this.nodeName = nodeName;
    }

    /** Starts the checker, unless the threshold is zero. */
    void start() {
        if (thresholdNanos <= 0) {
            return;
        }
        Thread checker = new Thread(this::check, "sharding-blocked-thread-checker");
        checker.setDaemon(true);
        checker.start();
    }

    /** Stops the checker. */
    void stop() {
        stopped = true;
    }

    /** Watches a thread from now on. Any thread. */
    Watched watch(Thread thread, String role) {
        Watched w = new Watched(thread, role);
        watched.add(w);
        return w;
    }

    /** The calling transport thread's watch, made on its first frame. */
    Watched transportThread() {
        Watched w = transportThreads.get();
        if (w == null) {
            w = watch(Thread.currentThread(), TRANSPORT);
            transportThreads.set(w);
        }
        return w;
    }

    /**
     * The calling thread's watch when it is one of the store's threads (it completes a write into the node), made on
     * its first call; null for any other thread (a write completed by an entity's or the application's thread).
     */
    @Nullable
    Watched storeThread() {
        Watched w = storeThreads.get();
        if (w == null) {
            Thread t = Thread.currentThread();
            if (t.getName().startsWith(STORE_THREADS)) {
                w = watch(t, STORE);
                SendingThreads.nodeThread(); // its replies wait at most max-wait for a slow member
            } else {
                w = UNWATCHED;
            }
            storeThreads.set(w);
        }
        return w == UNWATCHED ? null : w;
    }

    /**
     * The watched thread starts a piece of work; a piece started within another one belongs to the outer one.
     *
     * @return what {@link #exit} takes back
     */
    static long enter(Watched w) {
        long outer = w.since;
        if (outer == 0) {
            w.since = System.nanoTime() | 1;
        }
        return outer;
    }

    /** The watched thread finished the piece of work {@link #enter} returned {@code outer} for. */
    static void exit(Watched w, long outer) {
        if (outer == 0) {
            w.since = 0;
        }
    }

    private void check() {
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), thresholdNanos / 5);
        while (!stopped) {
            LockSupport.parkNanos(period);
            long now = System.nanoTime();
            for (Watched w : watched) {
                if (!w.thread.isAlive()) {
                    watched.remove(w);
                    continue;
                }
                long since = w.since;
                if (since != 0 && now - since > thresholdNanos && w.reported != since) {
                    w.reported = since;
                    report(w, now - since);
                }
            }
        }
    }

    private void report(Watched w, long heldNanos) {
        HeldThread stack = new HeldThread(w.thread);
        log.warn(
                "Thread {} ({} thread of node {}) has been held for {} ms by one piece of work, more than the"
                        + " blocked-thread-threshold of {} ms; it is doing:",
                w.thread.getName(),
                w.role,
                nodeName.get(),
                TimeUnit.NANOSECONDS.toMillis(heldNanos),
                TimeUnit.NANOSECONDS.toMillis(thresholdNanos),
                stack);
        try {
            metrics.blockedThread(w.role);
        } catch (RuntimeException e) {
            log.debug("Recording a held thread failed", e);
        }
    }

    /** The stack of a held thread, for the log. */
    private static final class HeldThread extends RuntimeException {

        @Serial
        private static final long serialVersionUID = 1L;

        HeldThread(Thread thread) {
            super("Stack of " + thread.getName(), null, false, true);
            setStackTrace(thread.getStackTrace());
        }
    }
}
