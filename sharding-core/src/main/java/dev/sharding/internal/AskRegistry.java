package dev.sharding.internal;

import dev.sharding.EntityUnreachableException;
import dev.sharding.Member;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The asks of this node that wait for a reply. Remote asks are found by correlation id when their reply arrives.
 * Timeouts use buckets of {@link #TICK_NANOS} swept by the control thread, so an ask costs no timer task and no lock.
 */
final class AskRegistry {

    static final long TICK_NANOS = 20_000_000L;

    private final ConcurrentHashMap<Long, PendingAsk<?>> byId = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<Long, ConcurrentLinkedQueue<PendingAsk<?>>> buckets = new ConcurrentHashMap<>();

    private final AtomicLong ids = new AtomicLong();

    private long sweptUpTo = System.nanoTime() / TICK_NANOS;

    void track(PendingAsk<?> ask) {
        long bucket = Math.max(ask.deadlineNanos / TICK_NANOS, sweptUpTo + 1);
        ConcurrentLinkedQueue<PendingAsk<?>> q = buckets.get(bucket);
        if (q == null) {
            q = buckets.computeIfAbsent(bucket, b -> new ConcurrentLinkedQueue<>());
        }
        q.add(ask);
    }

    long register(PendingAsk<?> ask) {
        long id = ids.incrementAndGet();
        ask.correlationId = id;
        byId.put(id, ask);
        if (ask.isDone()) {
            byId.remove(id);
        }
        return id;
    }

    @Nullable PendingAsk<?> remove(long id) {
        return byId.remove(id);
    }

    /** Expires the asks whose deadline passed. Runs on the control thread only. */
    void sweep() {
        long now = System.nanoTime() / TICK_NANOS;
        for (long b = sweptUpTo + 1; b <= now; b++) {
            ConcurrentLinkedQueue<PendingAsk<?>> q = buckets.remove(b);
            if (q != null) {
                for (PendingAsk<?> ask : q) {
                    if (!ask.isDone()) {
                        byId.remove(ask.correlationId);
                        ask.expire();
                    }
                }
            }
        }
        sweptUpTo = now;
    }

    /** Fails the asks sent to members that are gone. */
    void failSentTo(Collection<Member> gone) {
        if (gone.isEmpty()) {
            return;
        }
        for (PendingAsk<?> ask : byId.values()) {
            Member target = ask.target;
            if (target != null && gone.contains(target)) {
                byId.remove(ask.correlationId);
                ask.fail(new EntityUnreachableException("Node " + target + " hosting [" + ask.typeName + "/"
                        + ask.entityId + "] left the cluster before replying; the message may or may not have"
                        + " been handled"));
            }
        }
    }

    /** Fails every waiting ask. */
    void failAll(RuntimeException reason) {
        for (ConcurrentLinkedQueue<PendingAsk<?>> q : buckets.values()) {
            for (PendingAsk<?> ask : q) {
                ask.fail(reason);
            }
        }
        buckets.clear();
        byId.clear();
    }

    int waiting() {
        return byId.size();
    }
}
