package dev.sharding.internal.lease;

import dev.sharding.ShardingSettings;
import dev.sharding.internal.coordinator.AllocationLeases;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * Times on the monotonic clock ({@link System#nanoTime()}) as the lease code compares them: only by difference, so
 * that the clock's wrap-around never matters, with {@link #NEVER} for "no time" and {@code Long.MAX_VALUE} for
 * "forever".
 */
public final class LeaseTimes {

    /** No time: no lease, no attempt yet. */
    public static final long NEVER = AllocationLeases.NEVER;

    private LeaseTimes() {}

    /**
     * Whether a deadline is still ahead.
     *
     * @param until the deadline, {@link #NEVER} for none, {@code Long.MAX_VALUE} for forever
     * @param now the time
     * @return true before the deadline
     */
    public static boolean ahead(long until, long now) {
        return AllocationLeases.ahead(until, now);
    }

    /** Whether time {@code a} is after time {@code b}, either of which may be {@link #NEVER}. */
    static boolean later(long a, long b) {
        return a != NEVER && (b == NEVER || a == Long.MAX_VALUE || (b != Long.MAX_VALUE && a - b > 0));
    }

    /** The later of two times, either of which may be {@link #NEVER}. */
    static long latest(long a, long b) {
        return later(a, b) ? a : b;
    }

    /** Whether at least {@code nanos} passed since {@code since} ({@link #NEVER}: yes). */
    static boolean elapsed(long since, long now, long nanos) {
        return since == NEVER || now - since >= nanos;
    }

    /** How often a lease is renewed (the coordinator pings, it renews its lease in the store): each quarter lease. */
    static long renewNanos(long leaseNanos) {
        return Math.max(1, leaseNanos / 4);
    }

    /** How many sent requests or pings are remembered for their answers. */
    static final int MAX_REMEMBERED = 64;

    /** Forgets the oldest entries beyond {@link #MAX_REMEMBERED}. */
    static void trim(LinkedHashMap<Long, Long> sentAt) {
        while (sentAt.size() > MAX_REMEMBERED) {
            Iterator<Long> it = sentAt.keySet().iterator();
            it.next();
            it.remove();
        }
    }

    /**
     * How long a view must last to be stable: as set, or the failure detector's time to notice a hung or cut-off
     * member (FD_ALL3's timeout plus VERIFY_SUSPECT2's, 3.5 s with the default stack) plus a second for the view to
     * be installed on both sides.
     */
    public static long stableAfterNanos(ShardingSettings settings, long failureDetectionNanos) {
        Duration set = settings.splitBrain().stableAfter();
        if (set != null) {
            return set.toNanos();
        }
        long detection = failureDetectionNanos > 0 ? failureDetectionNanos : 3_500_000_000L;
        return detection + 1_000_000_000L;
    }
}
