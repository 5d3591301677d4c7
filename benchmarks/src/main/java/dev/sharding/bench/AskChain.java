package dev.sharding.bench;

import dev.sharding.ShardRegion;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Keeps a fixed number of asks ({@link Add} of 1, replied with {@link Total}) outstanding: each reply records its
 * round trip and sends the next ask from its callback, which runs on the node's entity executor (where the region
 * completes its futures). Entities are taken round robin.
 */
final class AskChain {

    private final ShardRegion<Counter> region;

    private final String[] ids;

    private final long total;

    private final Histogram histogram;

    private final AtomicLong issued = new AtomicLong();

    private final AtomicLong completed = new AtomicLong();

    private final AtomicLong errors = new AtomicLong();

    private final CountDownLatch done = new CountDownLatch(1);

    private volatile long endNanos;

    AskChain(ShardRegion<Counter> region, String[] ids, long total, Histogram histogram) {
        this.region = region;
        this.ids = ids;
        this.total = total;
        this.histogram = histogram;
    }

    private void next() {
        long k = issued.getAndIncrement();
        if (k >= total) {
            return;
        }
        String id = ids[(int) (k % ids.length)];
        long start = System.nanoTime();
        region.ask(id, new Add(id, 1), Total.class).whenComplete((reply, failure) -> {
            long end = System.nanoTime();
            if (failure == null) {
                histogram.recordValue(end - start);
            } else {
                errors.incrementAndGet();
            }
            if (completed.incrementAndGet() == total) {
                endNanos = end;
                done.countDown();
            } else {
                next();
            }
        });
    }

    /**
     * Runs the chain to its end.
     *
     * @param outstanding how many asks are outstanding at all times
     * @param maxTime how long it may take
     * @return nanoseconds from the first ask to the last reply
     * @throws InterruptedException if interrupted
     * @throws IllegalStateException if it did not finish in time
     */
    long run(int outstanding, Duration maxTime) throws InterruptedException {
        long start = System.nanoTime();
        for (int i = 0; i < outstanding; i++) {
            next();
        }
        if (!done.await(maxTime.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(
                    "Asks did not finish within " + maxTime + ": " + completed.get() + " of " + total + " answered");
        }
        return endNanos - start;
    }

    long errors() {
        return errors.get();
    }
}
