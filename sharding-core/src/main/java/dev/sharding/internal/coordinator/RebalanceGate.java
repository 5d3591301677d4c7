package dev.sharding.internal.coordinator;

/**
 * When the coordinator may start a rebalance round. Pure: the times are given, no clock is read.
 *
 * <ul>
 * <li>Only on a ready coordinator (only {@link Active} asks), while no shard is moving and no member is leaving, and once the membership has
 * been stable for {@code rebalance.stable-after} (no member joined, left or registered its regions): members that
 * come and go within that window, as several nodes started together do, move shards once, after the last of them.</li>
 * <li>As soon as the membership is stable after a change (a member joined, left or registered), without waiting for
 * the interval: a new member gets its share within stable-after plus its moves.</li>
 * <li>Every {@code rebalance-interval} after the last round (or after the coordinator became ready), for imbalance
 * that no membership change caused.</li>
 * <li>At once after a round that moved something has finished moving, so that a new member reaches its share in a
 * few handoff times rather than a few intervals; a round that moved nothing waits for the interval.</li>
 * </ul>
 *
 * <p>Control thread only.
 */
final class RebalanceGate {

    private final long intervalNanos;

    private final long stableAfterNanos;

    private long lastViewChangeNanos;

    private long lastRoundNanos;

    private int movedInLastRound;

    /** The membership changed since the last round started: a round is owed once it is stable. */
    private boolean membershipChanged;

    /**
     * @param intervalNanos the rebalance interval
     * @param stableAfterNanos how long the membership must be unchanged before a round
     * @param now the time now
     */
    RebalanceGate(long intervalNanos, long stableAfterNanos, long now) {
        this.intervalNanos = intervalNanos;
        this.stableAfterNanos = stableAfterNanos;
        this.lastViewChangeNanos = now;
        this.lastRoundNanos = now;
    }

    /** A member joined, left, or registered its regions. */
    void viewChanged(long now) {
        lastViewChangeNanos = now;
        membershipChanged = true;
    }

    /** The coordinator became ready: the first periodic round is one interval away. */
    void ready(long now) {
        lastRoundNanos = now;
    }

    /** A round started moving {@code moved} shards. */
    void roundStarted(int moved, long now) {
        movedInLastRound = moved;
        lastRoundNanos = now;
        membershipChanged = false;
    }

    /** When the membership, unchanged since its last change, counts as stable. */
    long stableAt() {
        return lastViewChangeNanos + stableAfterNanos;
    }

    /** Whether the membership has been unchanged for stable-after. */
    boolean stable(long now) {
        return now - lastViewChangeNanos >= stableAfterNanos;
    }

    /**
     * Whether a round is due without a previous round's moves: after a membership change once it is stable, or
     * when the interval has passed.
     *
     * @param now the time
     * @param nothingMoving whether no handoff is in progress
     * @param nobodyLeaving whether no member is leaving gracefully
     * @return true to start a round
     */
    boolean periodicRoundDue(long now, boolean nothingMoving, boolean nobodyLeaving) {
        return nothingMoving
                && nobodyLeaving
                && stable(now)
                && (membershipChanged || now - lastRoundNanos >= intervalNanos);
    }

    /**
     * Whether the next round starts at once: the last one moved something and its moves are done.
     *
     * @param now the time
     * @param nothingMoving whether no handoff is in progress
     * @param nobodyLeaving whether no member is leaving gracefully
     * @return true to start a round
     */
    boolean nextRoundAtOnce(long now, boolean nothingMoving, boolean nobodyLeaving) {
        return movedInLastRound > 0 && nothingMoving && nobodyLeaving && stable(now);
    }
}
