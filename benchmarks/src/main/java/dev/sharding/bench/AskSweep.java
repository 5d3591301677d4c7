package dev.sharding.bench;

import dev.sharding.ShardRegion;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Asks ({@link Get}) entities {@code 0..n-1} with at most {@code window} asks outstanding, and asks again, round after
 * round, those whose reply did not pass a check or that failed, until all passed, the deadline passed, or the counts
 * stopped changing although every ask of a round was answered (messages were lost, so they never will).
 *
 * <p>Callbacks run where the region completes its futures: on the node's entity executor.
 */
final class AskSweep {

    /** Checks one reply. */
    @FunctionalInterface
    interface Check {

        /**
         * Whether the entity is done.
         *
         * @param index the entity's index
         * @param reply its reply
         * @return true when it need not be asked again
         */
        boolean ok(int index, Total reply);
    }

    /**
     * How a sweep ended.
     *
     * @param notDone entities that never passed the check
     * @param asks asks sent
     * @param failures asks that failed or timed out
     * @param rounds rounds
     * @param stalled whether it gave up because nothing changed any more
     */
    record Outcome(int notDone, long asks, long failures, int rounds, boolean stalled) {}

    /** Sends one ask of a sweep. */
    @FunctionalInterface
    interface Asker {

        /**
         * Asks one entity.
         *
         * @param index the entity's index
         * @param id its id
         * @param timeout the ask's timeout
         * @return the reply
         */
        CompletableFuture<Total> ask(int index, String id, Duration timeout);
    }

    private final Asker asker;

    /** A sweep of {@link Get} asks. */
    AskSweep(ShardRegion<?> region) {
        this((i, id, timeout) -> region.ask(id, new Get(id), Total.class, timeout));
    }

    /** A sweep whose asks {@code asker} sends. */
    AskSweep(Asker asker) {
        this.asker = asker;
    }

    Outcome run(
            int n,
            IntFunction<String> idOf,
            Check check,
            int window,
            Duration timeout,
            Duration maxTime,
            Duration stallAfter,
            long pauseMillis)
            throws InterruptedException {
        long deadline = System.nanoTime() + maxTime.toNanos();
        boolean[] done = new boolean[n];
        int[] pending = new int[n];
        for (int i = 0; i < n; i++) {
            pending[i] = i;
        }
        int pendingCount = n;
        long asks = 0;
        AtomicLong failures = new AtomicLong();
        int rounds = 0;
        long previousSum = Long.MIN_VALUE;
        long stalledSince = -1;
        while (true) {
            rounds++;
            Semaphore permits = new Semaphore(window);
            CountDownLatch answered = new CountDownLatch(pendingCount);
            AtomicLong sum = new AtomicLong();
            AtomicBoolean roundFailed = new AtomicBoolean();
            for (int k = 0; k < pendingCount; k++) {
                int i = pending[k];
                String id = idOf.apply(i);
                permits.acquire();
                asks++;
                asker.ask(i, id, timeout).whenComplete((total, failure) -> {
                    if (failure == null && total != null) {
                        sum.addAndGet(total.count());
                        if (check.ok(i, total)) {
                            done[i] = true;
                        }
                    } else {
                        failures.incrementAndGet();
                        roundFailed.set(true);
                    }
                    permits.release();
                    answered.countDown();
                });
            }
            answered.await();
            int next = 0;
            for (int k = 0; k < pendingCount; k++) {
                if (!done[pending[k]]) {
                    pending[next++] = pending[k];
                }
            }
            long now = System.nanoTime();
            boolean noChange = next == pendingCount && sum.get() == previousSum && !roundFailed.get();
            if (!noChange) {
                stalledSince = -1;
            } else if (stalledSince < 0) {
                stalledSince = now;
            }
            previousSum = roundFailed.get() ? Long.MIN_VALUE : sum.get();
            pendingCount = next;
            boolean stalled = stalledSince >= 0 && now - stalledSince >= stallAfter.toNanos();
            if (pendingCount == 0 || now > deadline || stalled) {
                return new Outcome(pendingCount, asks, failures.get(), rounds, stalled);
            }
            if (pauseMillis > 0) {
                Thread.sleep(pauseMillis);
            }
        }
    }
}
