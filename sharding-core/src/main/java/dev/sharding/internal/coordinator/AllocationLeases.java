package dev.sharding.internal.coordinator;

import dev.sharding.Member;

/**
 * What the coordinator asks the lease keeper before it gives out a shard: whether its side may run, which members
 * hold a lease, and until when a shard that may still be served elsewhere must wait. Queries only; {@code LeaseKeeper}
 * answers them on the node, a fake in the coordinator's tests.
 */
public interface AllocationLeases {

    /**
     * No time: a deadline that is not set. Deadlines here are times on the monotonic clock ({@link System#nanoTime()}),
     * compared only by difference, with {@code Long.MAX_VALUE} for "forever".
     */
    long NEVER = Long.MIN_VALUE;

    /**
     * Whether a deadline is still ahead.
     *
     * @param until the deadline, {@link #NEVER} for none, {@code Long.MAX_VALUE} for forever
     * @param now the time
     * @return true before the deadline
     */
    static boolean ahead(long until, long now) {
        return until != NEVER && (until == Long.MAX_VALUE || until - now > 0);
    }

    /** Whether this side of the cluster may allocate shards now. */
    boolean inCharge(long now);

    /** Until when a member that left may still serve its shards (its last lease, with margin). */
    long fenceFor(Member gone, long now);

    /** Whether a winning set of members confirmed this side's leases since a time. */
    boolean confirmedSince(long since, long now);

    /** Until when a newly active coordinator must not take over shards nobody reports. */
    long activationFence(long now);

    /**
     * Until when a newly active coordinator that followed another must not take over any shard, judged now: one lease
     * (with margin) after a winning set of members first confirmed it, or sooner, one lease after the latest answer
     * that set (this coordinator among it) gave an earlier coordinator. A member that has confirmed this coordinator
     * no longer confirms its predecessor, so the predecessor's last grant rests on answers given before: a member
     * that had not installed the new view yet (slow, paused, or still reaching the old coordinator while the new one
     * could not) may have answered it after this coordinator became active, and says so in its pong.
     * {@code Long.MAX_VALUE} while no winning set has confirmed it; {@code Long.MIN_VALUE} when there is nothing to
     * wait for (a coordinator that never followed another, or no split-brain strategy). Later, if members that had
     * confirmed this coordinator answered another one since (their views lost it and found it again while its view
     * kept them): one lease after the latest such answer, for that coordinator's grants.
     */
    long confirmedActivationFence(long now);

    /** Until when shards nobody reports must wait after members of another part of a split cluster joined. */
    long mergeFence(long now);

    /** Whether a member holds a lease from this coordinator, so it may be given shards. */
    boolean leased(Member member, long now);
}
