package dev.sharding.bench.jmh;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.bench.Add;
import dev.sharding.bench.Total;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The workloads' counter as a plain entity (no Spring), plus a count of every message handled by any instance, so
 * that a benchmark can wait until what it sent has been handled instead of letting mailboxes grow without bound.
 */
public class JmhCounter {

    /** Messages handled by all instances in this JVM. */
    public static final AtomicLong HANDLED = new AtomicLong();

    private final EntityContext context;

    private long total;

    private long count;

    /**
     * Creates the counter of one id.
     *
     * @param context the entity's id
     */
    public JmhCounter(EntityContext context) {
        this.context = context;
    }

    /**
     * Adds the amount.
     *
     * @param add the message
     * @return the new state
     */
    @EntityHandler
    public Total on(Add add) {
        total += add.amount();
        count++;
        HANDLED.incrementAndGet();
        return new Total(context.entityId(), total, count);
    }

    /**
     * Waits until {@link #HANDLED} reaches a value, yielding the processor meanwhile (on two cores a spinning waiter
     * would take one from the two entity threads).
     *
     * @param target the value
     */
    public static void awaitHandled(long target) {
        while (HANDLED.get() < target) {
            Thread.yield();
        }
    }
}
