package dev.sharding.internal.ask;

import dev.sharding.EntityUnreachableException;
import dev.sharding.Member;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The asks of this node that wait for a reply. Remote asks are found by correlation id when their reply arrives.
 *
 * <p>Correlation ids index a table of {@link #SLOTS} slots, so registering and finding an ask boxes no key and makes
 * no map node; an id whose slot is held by another ask still waiting goes to an overflow map instead.
 *
 * <p>Timeouts use buckets of {@link #TICK_NANOS} swept by the control thread, so an ask costs no timer task and no
 * lock. A new ask first goes to a queue of recent asks, which the control thread empties every tick: one answered
 * by then (most are) is dropped there and then, and only the others go to their deadline's bucket. So an answered
 * ask is not kept alive until its deadline (docs/performance-history.md, "Where the time goes", has how many
 * that once held).
 */
public final class AskRegistry {

    public static final long TICK_NANOS = 20_000_000L;

    /** Slots of the id table: a power of two, well above the asks one node keeps waiting at once. */
    static final int SLOTS = 1 << 16;

    private final AtomicReferenceArray<@Nullable PendingAsk<?>> slots = new AtomicReferenceArray<>(SLOTS);

    private final ConcurrentHashMap<Long, PendingAsk<?>> overflow = new ConcurrentHashMap<>();

    private final ConcurrentLinkedQueue<PendingAsk<?>> recent = new ConcurrentLinkedQueue<>();

    private final ConcurrentHashMap<Long, ConcurrentLinkedQueue<PendingAsk<?>>> buckets = new ConcurrentHashMap<>();

    private final AtomicLong ids = new AtomicLong();

    private final AskCompletions completions;

    private long sweptUpTo = System.nanoTime() / TICK_NANOS;

    /**
     * Set while the control thread sleeps longer than a tick (nothing was being timed): the next ask runs it, so that
     * its timeout is swept at the tick's precision again. Null otherwise: then an ask pays one volatile read.
     */
    private volatile @Nullable Runnable wakeOnAsk;

    /** A registry whose asks complete in place, for tests. */
    public AskRegistry() {
        this(AskCompletions.INLINE);
    }

    /** @param completions where the asks' futures complete */
    public AskRegistry(AskCompletions completions) {
        this.completions = completions;
    }

    /** Where the asks' futures complete. */
    public AskCompletions completions() {
        return completions;
    }

    /** Starts the ask's timeout. */
    public void track(PendingAsk<?> ask) {
        recent.offer(ask);
        Runnable wake = wakeOnAsk;
        if (wake != null) {
            wakeOnAsk = null;
            wake.run(); // may run on several threads at once: it only hands the control thread a task
        }
    }

    /**
     * Whether no ask is being timed: none waits in the recent queue or in a deadline bucket. Control thread.
     *
     * @param wake run by the next ask tracked, if none is being timed now; called before looking, so that an ask
     *     tracked meanwhile is either seen here or runs it
     * @return whether none was, and {@code wake} is set
     */
    public boolean idleWakingOnNext(Runnable wake) {
        wakeOnAsk = wake;
        if (recent.isEmpty() && buckets.isEmpty()) {
            return true;
        }
        wakeOnAsk = null;
        return false;
    }

    /** No longer wakes the control thread on the next ask (it ticks at its period again). Control thread. */
    public void stopWaking() {
        wakeOnAsk = null;
    }

    /** Gives the ask a new correlation id by which its reply finds it. */
    public long register(PendingAsk<?> ask) {
        long id = ids.incrementAndGet();
        ask.correlationId = id;
        int slot = (int) id & (SLOTS - 1);
        PendingAsk<?> occupant = slots.get(slot);
        if ((occupant == null || occupant.isDone()) && slots.compareAndSet(slot, occupant, ask)) {
            if (ask.isDone()) {
                slots.compareAndSet(slot, ask, null);
            }
        } else {
            overflow.put(id, ask);
            if (ask.isDone()) {
                overflow.remove(id);
            }
        }
        return id;
    }

    /** Takes the ask waiting under an id, if any still does. */
    @Nullable
    public PendingAsk<?> remove(long id) {
        int slot = (int) id & (SLOTS - 1);
        PendingAsk<?> ask = slots.get(slot);
        if (ask != null && ask.correlationId == id && slots.compareAndSet(slot, ask, null)) {
            return ask;
        }
        return overflow.isEmpty() ? null : overflow.remove(id);
    }

    /** Expires the asks whose deadline passed. Runs on the control thread only. */
    public void sweep() {
        long now = System.nanoTime() / TICK_NANOS;
        for (PendingAsk<?> ask; (ask = recent.poll()) != null; ) {
            if (!ask.isDone()) {
                long bucket = Math.max(ask.deadlineNanos / TICK_NANOS, now);
                buckets.computeIfAbsent(bucket, b -> new ConcurrentLinkedQueue<>())
                        .add(ask);
            } else if (!overflow.isEmpty()) {
                overflow.remove(ask.correlationId, ask); // done some other way (cancelled by its caller)
            }
        }
        for (long b = sweptUpTo + 1; b <= now; b++) {
            ConcurrentLinkedQueue<PendingAsk<?>> q = buckets.remove(b);
            if (q != null) {
                for (PendingAsk<?> ask : q) {
                    remove(ask.correlationId);
                    if (!ask.isDone()) {
                        ask.expire();
                    }
                }
            }
        }
        sweptUpTo = now;
    }

    /** Fails the asks sent to members that are gone. */
    public void failSentTo(Collection<Member> gone) {
        if (gone.isEmpty()) {
            return;
        }
        forEachWaiting(ask -> {
            Member target = ask.target;
            if (target != null && gone.contains(target) && remove(ask.correlationId) == ask) {
                ask.fail(new EntityUnreachableException("Node " + target + " hosting [" + ask.typeName + "/"
                        + ask.entityId + "] left the cluster before replying; the message may or may not have"
                        + " been handled"));
            }
        });
    }

    /** Fails every waiting ask. */
    public void failAll(RuntimeException reason) {
        for (PendingAsk<?> ask; (ask = recent.poll()) != null; ) {
            ask.fail(reason);
        }
        for (ConcurrentLinkedQueue<PendingAsk<?>> q : buckets.values()) {
            for (PendingAsk<?> ask : q) {
                ask.fail(reason);
            }
        }
        buckets.clear();
        forEachWaiting(ask -> {
            remove(ask.correlationId);
            ask.fail(reason);
        });
    }

    /** Asks kept for their timeout: those in the recent queue and in deadline buckets. For tests. */
    int keptForTimeout() {
        int n = recent.size();
        for (ConcurrentLinkedQueue<PendingAsk<?>> q : buckets.values()) {
            n += q.size();
        }
        return n;
    }

    /** Remote asks waiting for their reply. */
    public int waiting() {
        int[] n = {0};
        forEachWaiting(ask -> n[0]++);
        return n[0];
    }

    private void forEachWaiting(java.util.function.Consumer<PendingAsk<?>> action) {
        for (int i = 0; i < SLOTS; i++) {
            PendingAsk<?> ask = slots.get(i);
            if (ask != null && !ask.isDone()) {
                action.accept(ask);
            }
        }
        for (PendingAsk<?> ask : overflow.values()) {
            if (!ask.isDone()) {
                action.accept(ask);
            }
        }
    }
}
