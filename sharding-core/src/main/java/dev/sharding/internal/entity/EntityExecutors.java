package dev.sharding.internal.entity;

import dev.sharding.internal.transport.SendingThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The pool a node's entities run on when the application gives none. */
public final class EntityExecutors {

    private static final Logger log = LoggerFactory.getLogger(EntityExecutors.class);

    private EntityExecutors() {}

    /** A work-stealing pool of daemon threads, one per processor (at least two), in FIFO mode for mailboxes. */
    public static ExecutorService workStealing() {
        int parallelism = Math.max(2, Runtime.getRuntime().availableProcessors());
        return new ForkJoinPool(
                parallelism,
                pool -> {
                    ForkJoinWorkerThread t = new EntityThread(pool);
                    t.setName("sharding-entity-" + t.getPoolIndex());
                    t.setDaemon(true);
                    return t;
                },
                (t, e) -> log.error("Uncaught failure on {}", t.getName(), e),
                true);
    }

    /**
     * A thread of the node's own entity pool: marked as one of the node's threads once, when it starts, so that a run
     * of a mailbox on it need not mark it ({@link SendingThreads#nodeThread()}).
     */
    static final class EntityThread extends ForkJoinWorkerThread {

        EntityThread(ForkJoinPool pool) {
            super(pool);
        }

        @Override
        protected void onStart() {
            super.onStart();
            SendingThreads.nodeThread();
        }
    }
}
