package dev.sharding.bench;

import dev.sharding.ShardRegion;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * A steady ask load that runs beside a membership change until stopped: a fixed number of chains, each keeping one
 * {@code ask(id, Add(id, 1), Total.class)} with the default timeout outstanding on a random entity, the next sent from
 * the previous one's callback. It counts every outcome: a failure of any kind (timeout, unreachable, rejected) is
 * what a caller would have seen during the moves.
 */
final class SteadyAsks {

    private final ShardRegion<Counter> region;

    private final String[] ids;

    private final Histogram histogram = new ConcurrentHistogram(3);

    private final AtomicLong answered = new AtomicLong();

    private final AtomicLong failed = new AtomicLong();

    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

    private final AtomicLong firstFailureNanos = new AtomicLong();

    private final AtomicLong lastFailureNanos = new AtomicLong();

    private final AtomicInteger running = new AtomicInteger();

    private final CountDownLatch stopped = new CountDownLatch(1);

    private volatile boolean stopping;

    SteadyAsks(ShardRegion<Counter> region, String[] ids) {
        this.region = region;
        this.ids = ids;
    }

    /** Starts the chains; they run until {@link #stop}. */
    void start(int chains) {
        running.set(chains);
        for (int i = 0; i < chains; i++) {
            next();
        }
    }

    private void next() {
        if (stopping) {
            if (running.decrementAndGet() == 0) {
                stopped.countDown();
            }
            return;
        }
        String id = ids[ThreadLocalRandom.current().nextInt(ids.length)];
        long start = System.nanoTime();
        region.ask(id, new Add(id, 1), Total.class).whenComplete((reply, failure) -> {
            long end = System.nanoTime();
            if (failure == null) {
                answered.incrementAndGet();
                histogram.recordValue(end - start);
            } else {
                failed.incrementAndGet();
                firstFailureNanos.compareAndSet(0, end);
                lastFailureNanos.set(end);
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                failures.computeIfAbsent(cause.getClass().getSimpleName(), k -> new AtomicLong())
                        .incrementAndGet();
            }
            next();
        });
    }

    /**
     * Stops the chains and waits until every outstanding ask has ended.
     *
     * @param t0 the workload's clock start, for when failures happened
     * @return the outcome, as JSON fields
     * @throws InterruptedException if interrupted
     */
    Map<String, Object> stop(long t0) throws InterruptedException {
        stopping = true;
        boolean ended = stopped.await(60, TimeUnit.SECONDS);
        Map<String, Object> r = new TreeMap<>();
        r.put("load_answered", answered.get());
        r.put("load_failed", failed.get());
        r.put("load_all_ended", ended);
        Map<String, Long> kinds = new TreeMap<>();
        failures.forEach((k, v) -> kinds.put(k, v.get()));
        r.put("load_failures", kinds);
        long first = firstFailureNanos.get();
        r.put("load_first_failure_s", first == 0 ? null : Workloads.round3(Workloads.seconds(first - t0)));
        r.put(
                "load_last_failure_s",
                first == 0 ? null : Workloads.round3(Workloads.seconds(lastFailureNanos.get() - t0)));
        r.put("load_p50_us", Workloads.micros(histogram.getValueAtPercentile(50.0)));
        r.put("load_p99_us", Workloads.micros(histogram.getValueAtPercentile(99.0)));
        r.put("load_max_us", Workloads.micros(histogram.getMaxValue()));
        return r;
    }
}
