package dev.sharding.internal.node;

import dev.sharding.spi.ShardingStore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's time for what entities keep in their state: this node's wall clock corrected by its offset from the
 * store's clock ({@link ShardingStore#currentTimeMillis()}), so that every node stamps and judges the ids of applied
 * messages alike even when their own clocks disagree. The offset is measured when the node starts and again every
 * {@link #REFRESH_MILLIS}, in the background; until the first answer, and when the store cannot answer, the last
 * offset stays (none at first). Any thread; never blocks.
 */
public final class StoreClock {

    private static final Logger log = LoggerFactory.getLogger(StoreClock.class);

    /** How often the offset is measured again. */
    static final long REFRESH_MILLIS = TimeUnit.MINUTES.toMillis(1);

    /** An offset this large is worth a line in the log: the node's clock is far from the store's. */
    private static final long REPORTED_OFFSET_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final ShardingStore store;

    private final LongSupplier wallClock;

    private final AtomicBoolean inFlight = new AtomicBoolean();

    private volatile long offsetMillis;

    private volatile long measuredAt = Long.MIN_VALUE;

    StoreClock(ShardingStore store) {
        this(store, System::currentTimeMillis);
    }

    StoreClock(ShardingStore store, LongSupplier wallClock) {
        this.store = store;
        this.wallClock = wallClock;
    }

    /** The time now on the store's clock, as well as this node can tell; measures the offset again when due. */
    public long millis() {
        long now = wallClock.getAsLong();
        long at = measuredAt;
        if (at == Long.MIN_VALUE || now - at >= REFRESH_MILLIS) {
            measure();
        }
        return now + offsetMillis;
    }

    /** This node's clock's distance behind the store's, as last measured (milliseconds; negative when ahead). */
    long offsetMillis() {
        return offsetMillis;
    }

    /** Asks the store for its time, unless a request is in flight; the offset counts from the request's midpoint. */
    void measure() {
        if (!inFlight.compareAndSet(false, true)) {
            return;
        }
        long sent = wallClock.getAsLong();
        measuredAt = sent; // not again before the refresh interval, whatever the answer
        try {
            store.currentTimeMillis().whenComplete((storeMillis, failure) -> {
                try {
                    if (failure == null && storeMillis != null) {
                        long received = wallClock.getAsLong();
                        long offset = storeMillis - (sent + (received - sent) / 2);
                        if (Math.abs(offset) >= REPORTED_OFFSET_MILLIS
                                && Math.abs(offset - offsetMillis) >= REPORTED_OFFSET_MILLIS) {
                            log.warn(
                                    "This node's clock is {} ms {} the store's: the ids of applied messages are timed"
                                            + " by the store's clock, so they are kept as long on every node; check"
                                            + " the node's time synchronisation",
                                    Math.abs(offset),
                                    offset > 0 ? "behind" : "ahead of");
                        }
                        offsetMillis = offset;
                    } else {
                        log.debug(
                                "Cannot read the store's clock; keeping the last offset: {}", String.valueOf(failure));
                    }
                } finally {
                    inFlight.set(false);
                }
            });
        } catch (RuntimeException e) {
            inFlight.set(false);
            log.debug("Cannot read the store's clock; keeping the last offset", e);
        }
    }
}
