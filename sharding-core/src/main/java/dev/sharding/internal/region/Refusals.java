package dev.sharding.internal.region;

import dev.sharding.internal.ask.ReplySink;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.DropReason;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a region answers a message, routed or buffered, that goes no further: an ask fails with the reason (a
 * local caller gets the exception itself, a remote one its kind, class and text); a tell is dropped, counted in the
 * type's metrics with why, and logged the first time and then at powers of two. Any thread.
 */
final class Refusals {

    private static final Logger log = LoggerFactory.getLogger(Refusals.class);

    private final EntityTypeMetrics metrics;

    private final AtomicLong droppedTells = new AtomicLong();

    Refusals(EntityTypeMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * Refuses a message.
     *
     * @param sink where its outcome goes: its ask, its remote caller, or {@link ReplySink#TELL}
     * @param reason why, for the caller and the log
     * @param why why, for the metrics of a dropped tell
     */
    void refuse(ReplySink sink, RuntimeException reason, DropReason why) {
        if (!sink.isTell()) {
            sink.refuse(reason);
            return;
        }
        metrics.dropped(why);
        long n = droppedTells.incrementAndGet();
        if (n == 1 || Long.bitCount(n) == 1) {
            log.warn("Dropped a tell ({} so far): {}", n, reason.getMessage());
        }
    }

    /** Tells dropped so far. */
    long droppedTells() {
        return droppedTells.get();
    }
}
