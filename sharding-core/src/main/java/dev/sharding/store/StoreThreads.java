package dev.sharding.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread naming and bounded waiting for the threads of a {@link JdbcShardingStore}.
 */
final class StoreThreads {

    private StoreThreads() {}

    /**
     * A factory of daemon threads named prefix + a number, so that a forgotten store never keeps a JVM alive.
     *
     * @param prefix the name prefix
     * @return the factory
     */
    static ThreadFactory factory(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Waits for a future until a deadline.
     *
     * @param future the future
     * @param deadline a {@link System#nanoTime()} value
     * @return whether it completed in time; false too if this thread was interrupted (the flag is kept)
     */
    static boolean await(CompletableFuture<?> future, long deadline) {
        try {
            future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    /**
     * Waits for a shut down executor to finish until a deadline.
     *
     * @param executor the executor, already shut down
     * @param deadline a {@link System#nanoTime()} value
     * @return whether it terminated in time; false too if this thread was interrupted (the flag is kept)
     */
    static boolean awaitTermination(ExecutorService executor, long deadline) {
        try {
            return executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
