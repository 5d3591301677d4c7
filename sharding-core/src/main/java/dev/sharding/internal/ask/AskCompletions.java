package dev.sharding.internal.ask;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import org.jspecify.annotations.Nullable;

/**
 * Where the stages that callers chain on an ask's future run: never on a thread of the runtime (the control thread, the
 * store's threads, JGroups' reading threads, the senders), where a caller's callback that blocks would stop the node.
 *
 * <p>With no executor of the application's, callbacks run on the entity executor: an outcome decided on one of its
 * threads (an entity's reply, a remote reply handed there by the transport) completes the future in place, at no cost;
 * an outcome decided anywhere else (a durable write's completion, a timeout, a member gone) is one task on it. With an
 * executor of the application's, every completion is one task on that executor. Telling the entity executor's threads
 * apart is a type and pool check, so it is done only for a {@link ForkJoinPool} (the node's own pool, or one the
 * application gave as entity executor); with any other entity executor every completion is a task on it.
 */
public final class AskCompletions {

    /** Completes in place on any thread: for tests of the parts that decide outcomes. */
    static final AskCompletions INLINE = new AskCompletions(Runnable::run, null, true);

    private final Executor executor;

    private final @Nullable ForkJoinPool inlinePool;

    private final boolean inlineAnywhere;

    private AskCompletions(Executor executor, @Nullable ForkJoinPool inlinePool, boolean inlineAnywhere) {
        this.executor = executor;
        this.inlinePool = inlinePool;
        this.inlineAnywhere = inlineAnywhere;
    }

    /**
     * @param entityExecutor the node's entity executor
     * @param callbackExecutor the application's executor for callbacks, or null for the entity executor
     */
    public static AskCompletions of(Executor entityExecutor, @Nullable Executor callbackExecutor) {
        if (callbackExecutor != null) {
            return new AskCompletions(callbackExecutor, null, false);
        }
        return new AskCompletions(entityExecutor, entityExecutor instanceof ForkJoinPool pool ? pool : null, false);
    }

    /** Whether this thread may complete an ask's future in place. */
    boolean inlineHere() {
        return inlineAnywhere
                || (inlinePool != null
                        && Thread.currentThread() instanceof ForkJoinWorkerThread worker
                        && worker.getPool() == inlinePool);
    }

    /**
     * Runs a completion on the callbacks' executor; in place if that executor does not take it (the node, or the
     * application's executor, stopped), so that no caller waits for ever.
     */
    public void handOff(Runnable completion) {
        try {
            executor.execute(completion);
        } catch (RuntimeException refused) { // RejectedExecutionException, or anything an application's executor throws
            completion.run();
        }
    }
}
