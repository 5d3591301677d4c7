package dev.sharding.internal.node;

import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.transport.SendingThreads;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's control thread: one thread that owns all protocol state (views, registration, shard homes, the
 * coordinator's table, leases), so that none of it needs a lock. Transport callbacks never block; they hand their
 * work to this thread. Once the node stops, work handed in is dropped rather than run: whatever still arrives then (a
 * store's completion, a caller's request, a retry the last task scheduled) is cancelled, with a debug line, never
 * thrown at whoever handed it in, whether it came through {@link #offer} or through {@link #executor()}.
 */
final class ControlLoop {

    private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

    /**
     * Cancels a task handed in after {@link #shutdown}, so that a caller waiting for it stops waiting; the queue has no
     * bound, so a thread that still runs takes every task and anything else is a bug, thrown as before.
     */
    private static final RejectedExecutionHandler DROP_WHEN_STOPPED = new RejectedExecutionHandler() {
        @Override
        public void rejectedExecution(Runnable task, ThreadPoolExecutor executor) {
            if (!executor.isShutdown()) {
                throw new RejectedExecutionException("The control thread refused a task while running: " + task);
            }
            if (task instanceof Future<?> future) {
                future.cancel(false);
            }
            log.debug("Dropped a control task handed in after the node stopped: {}", task);
        }
    };

    private final ScheduledThreadPoolExecutor thread;

    /** Marks each task's start and end for the blocked-thread checker, once the node set one. */
    private volatile @Nullable BlockedThreads blocked;

    private BlockedThreads.@Nullable Watched watched;

    /** What {@link BlockedThreads#enter} returned for the running task; the control thread's only. */
    private long outer;

    ControlLoop() {
        thread =
                new ScheduledThreadPoolExecutor(
                        1,
                        r -> {
                            Thread t = new Thread(
                                    () -> {
                                        // its frames are queued, never waited for: a member that stopped
                                        // reading must not hold up the lease renewals and shard homes of all
                                        // the others
                                        SendingThreads.neverWait();
                                        r.run();
                                    },
                                    "sharding-control");
                            t.setDaemon(true);
                            return t;
                        },
                        DROP_WHEN_STOPPED) {
                    @Override
                    protected void beforeExecute(Thread t, Runnable r) {
                        BlockedThreads.Watched w = watched;
                        if (w == null || w.thread != t) { // the first task, or a new thread after one that died
                            BlockedThreads b = blocked;
                            if (b == null) {
                                return;
                            }
                            w = b.watch(t, BlockedThreads.CONTROL);
                            watched = w;
                        }
                        outer = BlockedThreads.enter(w);
                    }

                    @Override
                    protected void afterExecute(Runnable r, @Nullable Throwable t) {
                        BlockedThreads.Watched w = watched;
                        if (w != null) {
                            BlockedThreads.exit(w, outer);
                        }
                    }
                };
        thread.setRemoveOnCancelPolicy(true);
    }

    /** Has every task from now on watched by the blocked-thread checker. */
    void watchWith(BlockedThreads checker) {
        this.blocked = checker;
    }

    /**
     * Runs a task on the control thread later, unless the node has stopped it. Any thread.
     *
     * @return false when the task was not taken (the node stopped)
     */
    boolean offer(Runnable task) {
        return !thread.submit(task).isCancelled();
    }

    /** Runs a task on the control thread and waits for it, at most 10 s; for the steps of a stop. */
    void runAndWait(Runnable task) {
        try {
            thread.submit(task).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.debug("Control task failed during stop", e);
        }
    }

    /** Reads state owned by the control thread from another thread, waiting at most 5 s. */
    <T> T read(Callable<T> query, T otherwise) {
        try {
            return thread.submit(query).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return otherwise;
        }
    }

    /** The thread as an executor, for parts that schedule their own retries. */
    ScheduledExecutorService executor() {
        return thread;
    }

    /** Stops the thread; queued work is dropped. */
    void shutdown() {
        thread.shutdownNow();
    }
}
