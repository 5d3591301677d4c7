package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Requests of one kind served together on the read threads: each request joins a queue, and a task takes everything
 * queued (at most {@code maxBatch}) when a thread takes it up, and serves it in one round trip (or one transaction),
 * while new requests queue for the next task. At most {@code maxTasks} tasks are queued or running at once, so that a
 * burst of requests (the entities of the shards a failover moved, all reading their state; the shards themselves, all
 * taking a new epoch) costs a few statements rather than one each, and a request that comes alone waits for nobody:
 * a task starts for it at once. Each request fails if it is not done within twice the query timeout from when it was
 * made, as a task of its own would ({@link ConnectionTasks#failAtDeadline}); a task that fails fails the requests it
 * took, and the ones it did not take wait for the next.
 *
 * <p>A request's result is given once the task's work has returned (for a transaction, once it committed), on the
 * thread that completes the task.
 *
 * @param <R> the request
 * @param <T> what a task's work returns for its batch
 */
final class CoalescedTasks<R extends CoalescedTasks.Request, T> {

    /** A request: its future is completed by {@link Completion}, or failed with its task or at its deadline. */
    interface Request {

        /**
         * The request's future.
         *
         * @return the future its caller holds
         */
        CompletableFuture<?> future();

        /**
         * The operation, for messages ("read of the state of [a/1]").
         *
         * @return its description
         */
        String what();
    }

    /**
     * The database work of a batch.
     *
     * @param <R> the request
     * @param <T> its result
     */
    @FunctionalInterface
    interface Work<R, T> {

        /**
         * Serves a batch.
         *
         * @param connection the task's connection
         * @param dialect the database's dialect
         * @param batch the requests taken, at least one
         * @return the result, given to {@link Completion} once the task is done
         * @throws SQLException on failure, which fails every request of the batch
         */
        T run(Connection connection, JdbcDialect dialect, List<R> batch) throws SQLException;
    }

    /**
     * Completes the requests of a batch from its work's result.
     *
     * @param <R> the request
     * @param <T> the result
     */
    @FunctionalInterface
    interface Completion<R, T> {

        /**
         * Completes each request.
         *
         * @param batch the requests taken
         * @param result what the work returned
         */
        void complete(List<R> batch, T result);
    }

    private final ConnectionTasks tasks;

    private final ConnectionTasks.Mode mode;

    private final String what;

    private final int maxTasks;

    private final int maxBatch;

    private final Work<R, T> work;

    private final Completion<R, T> completion;

    private final Queue<R> queue = new ConcurrentLinkedQueue<>();

    /** Tasks started and not yet done. */
    private final AtomicInteger started = new AtomicInteger();

    /**
     * Creates the queue of one kind of request.
     *
     * @param tasks the read threads
     * @param mode how a task uses its connection
     * @param what a task's operation, for messages ("read of entity states")
     * @param maxTasks the most tasks queued or running at once
     * @param maxBatch the most requests one task takes
     * @param work serves a batch
     * @param completion completes a batch's requests from the result
     */
    CoalescedTasks(
            ConnectionTasks tasks,
            ConnectionTasks.Mode mode,
            String what,
            int maxTasks,
            int maxBatch,
            Work<R, T> work,
            Completion<R, T> completion) {
        if (maxTasks < 1 || maxBatch < 1) {
            throw new IllegalArgumentException("maxTasks and maxBatch must be positive");
        }
        this.tasks = tasks;
        this.mode = mode;
        this.what = what;
        this.maxTasks = maxTasks;
        this.maxBatch = maxBatch;
        this.work = work;
        this.completion = completion;
    }

    /**
     * Queues a request, and starts a task for it unless enough are already started.
     *
     * @param request the request, whose future is not yet done
     */
    void add(R request) {
        tasks.failAtDeadline(request.future(), request::what);
        queue.add(request);
        startIfNeeded();
    }

    /**
     * Starts a task while requests wait and fewer than {@code maxTasks} are started. A request queued after a task
     * took its batch is seen either by the next {@link #add} or by the task, which checks the queue once it is done.
     */
    private void startIfNeeded() {
        while (!queue.isEmpty()) {
            int n = started.get();
            if (n >= maxTasks) {
                return;
            }
            if (started.compareAndSet(n, n + 1)) {
                start();
                return;
            }
        }
    }

    private void start() {
        Batch<R> batch = new Batch<>();
        // the batch is taken as the task starts, before it borrows a connection: a task that cannot get one fails
        // the requests it took with its reason, and a task that finds nothing left to do borrows none
        CompletableFuture<Optional<T>> task = tasks.onReaderIfWanted(
                what,
                mode,
                () -> !batch.take(queue, maxBatch).isEmpty(),
                (c, d) -> work.run(c, d, batch.take(queue, maxBatch)));
        task.whenComplete((result, failure) -> {
            List<R> taken = batch.close();
            try {
                if (failure == null) {
                    if (!taken.isEmpty() && result.isPresent()) {
                        completion.complete(taken, result.get());
                    }
                } else {
                    taken.forEach(r -> r.future().completeExceptionally(failure));
                }
            } finally {
                started.decrementAndGet();
                if (tasks.accepting()) {
                    startIfNeeded();
                } else {
                    // the store stops: no task will take the rest
                    failQueued();
                }
            }
        });
    }

    private void failQueued() {
        for (R r; (r = queue.poll()) != null; ) {
            r.future().completeExceptionally(BatchWriter.closedException(r.what()));
        }
    }

    /**
     * The requests one task took: taken once, as the task starts (its work, and a work tried again on another
     * connection, gets the same batch), and closed when the task is done, so that a task that starts after it failed
     * at its deadline takes nothing.
     */
    private static final class Batch<R extends Request> {

        private @Nullable List<R> taken;

        private boolean closed;

        synchronized List<R> take(Queue<R> queue, int max) {
            List<R> batch = taken;
            if (batch == null) {
                batch = new ArrayList<>();
                for (R r; !closed && batch.size() < max && (r = queue.poll()) != null; ) {
                    if (!r.future().isDone()) {
                        batch.add(r);
                    }
                }
                taken = batch;
            }
            return batch;
        }

        synchronized List<R> close() {
            closed = true;
            List<R> batch = taken;
            return batch == null ? List.of() : batch;
        }
    }
}
