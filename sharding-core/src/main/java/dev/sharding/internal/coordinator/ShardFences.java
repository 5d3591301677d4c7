package dev.sharding.internal.coordinator;

import java.util.HashMap;
import java.util.Map;

/**
 * When the coordinator may take over a shard that may still be served elsewhere. Pure: the times and the lease
 * keeper's answers are given.
 *
 * <ul>
 * <li><b>A member left</b> (crashed, froze, cut off): its shards are fenced until the last lease this coordinator
 * granted it has ended ({@link #memberLeft}), and then until a winning set of members has confirmed this coordinator
 * with pings sent after the member left, which a coordinator on the losing side of a partition never gets.</li>
 * <li><b>This coordinator has just become active</b>: a predecessor's lease may still cover a shard no member
 * reports, so no such shard is taken over for one lease duration ({@link #activated}), unless this node never
 * followed another coordinator (the first node of a new cluster).</li>
 * <li><b>Members of another part of a split joined</b> bringing shards: leases granted there may still cover shards
 * nobody reports, and the same wait applies from then ({@link #merged}).</li>
 * <li>A shard that a member reports as its own again is not fenced any more ({@link #reported}).</li>
 * </ul>
 *
 * <p>Control thread only.
 */
final class ShardFences {

    /** What {@link #check} answers. */
    enum Verdict {
        /** The shard may be taken over now. */
        FREE,
        /** Not before {@link #until}: a lease may still cover it. */
        WAIT_FOR_LEASES,
        /** Not before a winning set confirmed this coordinator after the member left. */
        WAIT_FOR_CONFIRMATION
    }

    /** What the lease keeper knows, asked only when it matters. */
    interface Confirmation {

        /**
         * Whether a winning set confirmed this coordinator with pings sent after a time.
         *
         * @param since the time
         * @param now the time now
         * @return true once confirmed
         */
        boolean confirmedSince(long since, long now);

        /** See {@link AllocationLeases#confirmedActivationFence}. */
        long confirmedActivationFence(long now);
    }

    /**
     * A shard of a member that left.
     *
     * @param until taken over no earlier than this
     * @param removedAt when the member left
     */
    private record Fence(long until, long removedAt) {

        /** Of two fences on one shard, the one that ends later. */
        Fence later(Fence other) {
            return new Fence(Math.max(until, other.until), Math.max(removedAt, other.removedAt));
        }
    }

    private final Map<ShardKey, Fence> fences = new HashMap<>();

    /** Before this time, a shard no member reports is not taken over. */
    private long activationFence = Long.MIN_VALUE;

    /** Until when the last {@link #check} said to wait ({@link Verdict#WAIT_FOR_LEASES}). */
    private long until;

    /** Forgets everything: the coordinator stopped or became active. */
    void clear() {
        fences.clear();
        activationFence = Long.MIN_VALUE;
    }

    /** This coordinator became active; shards nobody reports wait until {@code fence}. */
    void activated(long fence) {
        fences.clear();
        activationFence = fence;
    }

    /** Members of another part of a split joined with shards; shards nobody reports wait until {@code fence}. */
    void merged(long fence) {
        activationFence = Math.max(activationFence, fence);
    }

    /** A shard of a member that left at {@code now} may be served there until {@code fence}. */
    void memberLeft(ShardKey key, long fence, long now) {
        fences.merge(key, new Fence(fence, now), Fence::later);
    }

    /** A member reports the shard as its own: it is not fenced any more. */
    void reported(ShardKey key) {
        fences.remove(key);
    }

    /**
     * Whether a shard may be taken over now; a {@link Verdict#FREE} shard is no longer fenced.
     *
     * @param key the shard
     * @param now the time
     * @param confirmation the lease keeper
     * @return the verdict; with {@link Verdict#WAIT_FOR_LEASES}, {@link #until()} says until when
     */
    Verdict check(ShardKey key, long now, Confirmation confirmation) {
        Fence memberFence = fences.get(key);
        long fence = memberFence == null ? activationFence : Math.max(activationFence, memberFence.until());
        long confirmed = confirmation.confirmedActivationFence(now);
        if (confirmed == Long.MAX_VALUE) {
            // no winning set follows this coordinator yet: one may still follow its predecessor
            return Verdict.WAIT_FOR_CONFIRMATION;
        }
        fence = Math.max(fence, confirmed);
        if (AllocationLeases.ahead(fence, now)) {
            until = fence;
            return Verdict.WAIT_FOR_LEASES;
        }
        if (memberFence != null && !confirmation.confirmedSince(memberFence.removedAt(), now)) {
            return Verdict.WAIT_FOR_CONFIRMATION;
        }
        fences.remove(key);
        return Verdict.FREE;
    }

    /** Until when the last {@link #check} that answered {@link Verdict#WAIT_FOR_LEASES} said to wait. */
    long until() {
        return until;
    }
}
