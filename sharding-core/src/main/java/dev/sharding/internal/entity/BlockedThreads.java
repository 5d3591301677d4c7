package dev.sharding.internal.entity;

import dev.sharding.internal.transport.SendingThreads;
import dev.sharding.spi.ShardingMetrics;
import java.io.Serial;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p>A watched thread marks its work in a counter of its own: {@link #enter} makes it odd (busy) and {@link #exit}
 * even again, two plain increments published without a fence and without reading the clock, since they run for every
 * frame a transport thread delivers. A daemon checker looks at the counters every tenth of the threshold and keeps, per
 * thread, the odd value it saw and when it first saw it: a thread whose counter stays at the same odd value for the
 * threshold has been held by one piece of work that long (or up to one check longer), and is reported once for it,
 * however long it stays held. Work shorter than the threshold is never reported; a hold is reported within the
 * threshold and two checks.
 */
public final class BlockedThreads {

    private static final Logger log = LoggerFactory.getLogger(BlockedThreads.class);

    /** The role of the control thread, as the meter's tag. */
    public static final String CONTROL = "control";

    /** The role of the transport's threads delivering frames, as the meter's tag. */
    static final String TRANSPORT = "transport";

    /** The role of the store's threads completing writes into the node, as the meter's tag. */
    static final String STORE = "store";

    /** The prefix of the names of the JDBC store's threads. */
    private static final String STORE_THREADS = "sharding-store-";

    /** Marks a thread that {@link #storeThread} does not watch. */
    private static final Watched UNWATCHED = new Watched(new Thread(() -> {}), "none");

    /** One watched thread. */
    public static final class Watched {

        private static final VarHandle WORK;

        static {
            try {
                WORK = MethodHandles.lookup().findVarHandle(Watched.class, "work", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        public final Thread thread;

        final String role;

        /**
         * Odd while the thread is in a piece of work, even while idle; one more at each start and at each end. Written
         * by the thread only (opaque: no fence), read by the checker (opaque: it may see it late by a little).
         */
        @SuppressWarnings("unused") // through WORK
        private long work;

        /** The odd value of {@link #work} the checker saw last, or 0; the checker's only. */
        long seen;

        /** When the checker first saw {@link #seen}; the checker's only. */
        long seenSince;

        /** The odd value of {@link #work} last reported; the checker's only. */
        long reported;

        Watched(Thread thread, String role) {
            this.thread = thread;
            this.role = role;
        }

        /** The counter, as the checker reads it. */
        long work() {
            return (long) WORK.getOpaque(this);
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
    public BlockedThreads(Duration threshold, ShardingMetrics metrics, Supplier<String> nodeName) {
        this.thresholdNanos = threshold.toNanos();
        this.metrics = metrics;
        this.nodeName = nodeName;
    }

    /** Starts the checker, unless the threshold is zero. */
    public void start() {
        if (thresholdNanos <= 0) {
            return;
        }
        Thread checker = new Thread(this::check, "sharding-blocked-thread-checker");
        checker.setDaemon(true);
        checker.start();
    }

    /** Stops the checker. */
    public void stop() {
        stopped = true;
    }

    /** Watches a thread from now on. Any thread. */
    public Watched watch(Thread thread, String role) {
        Watched w = new Watched(thread, role);
        watched.add(w);
        return w;
    }

    /** The calling transport thread's watch, made on its first frame. */
    public Watched transportThread() {
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
     * The watched thread starts a piece of work; a piece started within another one belongs to the outer one. Only
     * the watched thread calls it.
     *
     * @return what {@link #exit} takes back
     */
    public static long enter(Watched w) {
        long work = (long) Watched.WORK.get(w); // its own field: a plain read
        if ((work & 1) == 0) {
            Watched.WORK.setOpaque(w, work + 1);
        }
        return work;
    }

    /** The watched thread finished the piece of work {@link #enter} returned {@code outer} for. */
    public static void exit(Watched w, long outer) {
        if ((outer & 1) == 0) {
            Watched.WORK.setOpaque(w, outer + 2);
        }
    }

    private void check() {
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), thresholdNanos / 10);
        while (!stopped) {
            LockSupport.parkNanos(period);
            long now = System.nanoTime();
            for (Watched w : watched) {
                if (!w.thread.isAlive()) {
                    watched.remove(w);
                    continue;
                }
                long work = w.work();
                if ((work & 1) == 0) {
                    w.seen = 0; // idle
                } else if (work != w.seen) {
                    w.seen = work; // a piece of work the checker had not seen: it started since the last check
                    w.seenSince = now;
                } else if (now - w.seenSince >= thresholdNanos && w.reported != work) {
                    w.reported = work;
                    report(w, work, now - w.seenSince);
                }
            }
        }
    }

    private void report(Watched w, long work, long heldNanos) {
        HeldThread stack = new HeldThread(w.thread);
        if (w.work() != work) {
            // the piece ended between the check and the stack: the stack would show the thread's next work or none
            log.warn(
                    "Thread {} ({} thread of node {}) was held for about {} ms by one piece of work, more than the"
                            + " blocked-thread-threshold of {} ms; it finished before its stack could be taken",
                    w.thread.getName(),
                    w.role,
                    nodeName.get(),
                    TimeUnit.NANOSECONDS.toMillis(heldNanos),
                    TimeUnit.NANOSECONDS.toMillis(thresholdNanos));
        } else {
            log.warn(
                    "Thread {} ({} thread of node {}) has been held for {} ms by one piece of work, more than the"
                            + " blocked-thread-threshold of {} ms; it is doing:",
                    w.thread.getName(),
                    w.role,
                    nodeName.get(),
                    TimeUnit.NANOSECONDS.toMillis(heldNanos),
                    TimeUnit.NANOSECONDS.toMillis(thresholdNanos),
                    stack);
        }
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
