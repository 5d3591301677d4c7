package dev.sharding.bench;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * What one deposit run counts, from every caller's thread: asks answered before, in and after the measured window,
 * the window's round trips, failures, and per account the sum of acknowledged deposits and of uncertain ones (a
 * deposit whose ask failed may or may not have been applied), which the balance check compares with the store.
 */
final class DepositTally {

    private final AtomicLongArray acked;

    private final AtomicLongArray uncertain;

    private final Histogram histogram = new ConcurrentHistogram(3);

    private final AtomicLong warmAsks = new AtomicLong();

    private final AtomicLong windowAsks = new AtomicLong();

    private final AtomicLong afterAsks = new AtomicLong();

    private final AtomicLong errors = new AtomicLong();

    private final AtomicLong ackedDeposits = new AtomicLong();

    private final CountDownLatch stopped;

    final long windowStart;

    final long windowEnd;

    DepositTally(int accounts, int chains, long windowStart, long windowEnd) {
        this.acked = new AtomicLongArray(accounts);
        this.uncertain = new AtomicLongArray(accounts);
        this.stopped = new CountDownLatch(chains);
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
    }

    /**
     * Counts one ask's outcome: a deposit of {@code amount}, or a read ({@code amount} 0).
     *
     * @return whether its chain goes on (false once the window has ended: the chain has stopped)
     */
    boolean record(int account, long amount, long start, long end, @Nullable Throwable failure) {
        if (failure == null) {
            if (amount > 0) { // 0: a read
                acked.addAndGet(account, amount);
                ackedDeposits.incrementAndGet();
            }
            if (end < windowStart) {
                warmAsks.incrementAndGet();
            } else if (end < windowEnd) {
                windowAsks.incrementAndGet();
                histogram.recordValue(end - start);
            } else {
                afterAsks.incrementAndGet();
            }
        } else {
            uncertain.addAndGet(account, amount);
            errors.incrementAndGet();
        }
        if (end >= windowEnd) {
            stopped.countDown();
            return false;
        }
        return true;
    }

    /** Waits for every chain to stop; false if some did not within the time. */
    boolean awaitStopped(long seconds) throws InterruptedException {
        return stopped.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** The counts of the run, as the result line names them. */
    void putCounts(Map<String, Object> r) {
        r.put("window_asks", windowAsks.get());
        r.put("window_s", Workloads.seconds(windowEnd - windowStart));
        r.put("warmup_asks", warmAsks.get());
        r.put("after_window_asks", afterAsks.get());
        r.put("errors", errors.get());
        r.put("acked_deposits", ackedDeposits.get());
    }

    /** The window's round trips, compressed and Base64-encoded. */
    String histogram() {
        return encode(histogram);
    }

    /** The acknowledged sum of every account, and the uncertain sum of those that have one. */
    void putSums(Map<String, Object> r) {
        int n = acked.length();
        long[] ackedArray = new long[n];
        Map<String, Long> uncertainById = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            ackedArray[i] = acked.get(i);
            if (uncertain.get(i) != 0) {
                uncertainById.put(Integer.toString(i), uncertain.get(i));
            }
        }
        r.put("acked", ackedArray);
        r.put("uncertain", uncertainById);
    }

    static String encode(Histogram h) {
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    }
}
