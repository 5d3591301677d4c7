package dev.sharding.internal.coordinator;

/**
 * When the coordinator may start a rebalance round. Pure: the times are given, no clock is read.
 *
 * <ul>
 * <li>Only on a ready coordinator, while no shard is moving and no member is leaving, and once the membership has
 * been stable for one {@code rebalance-interval} (no member joined or left): a rolling restart, whose members come
 * and go, moves nothing until it is over.</li>
 * <li>Every {@code rebalance-interval} after the last round (or after the coordinator became ready).</li>
 * <li>At once after a round that moved something has finished moving, so that a new member reaches its share in a
 * few handoff times rather than a few intervals; a round that moved nothing waits for the interval.</li>
 * </ul>
 *
 * <p>Control thread only.
 */
final class RebalanceGate {

    private final long intervalNanos;

    private long lastViewChangeNanos;

    private long lastRoundNanos;

    private int movedInLastRound;

    RebalanceGate(long intervalNanos, long now) {
        this.intervalNanos = intervalNanos;
        this.lastViewChangeNanos = now;
        this.lastRoundNanos = now;
    }

    /** A member joined or left. */
    void viewChanged(long now) {
        lastViewChangeNanos = now;
    }

    /** The coordinator became ready: the first round is one interval away. */
    void ready(long now) {
        lastRoundNanos = now;
    }

    /** A round started moving {@code moved} shards. */
    void roundStarted(int moved, long now) {
        movedInLastRound = moved;
        lastRoundNanos = now;
    }

    /** Whether the membership has been stable for one interval. */
    boolean stable(long now) {
        return now - lastViewChangeNanos >= intervalNanos;
    }

    /**
     * Whether the periodic round is due.
     *
     * @param now the time
     * @param ready whether the coordinator has rebuilt its table
     * @param nothingMoving whether no handoff is in progress
     * @param nobodyLeaving whether no member is leaving gracefully
     * @return true to start a round
     */
    boolean periodicRoundDue(long now, boolean ready, boolean nothingMoving, boolean nobodyLeaving) {
        return ready && nothingMoving && nobodyLeaving && stable(now) && now - lastRoundNanos >= intervalNanos;
    }

    /**
     * Whether the next round starts at once: the last one moved something and its moves are done.
     *
     * @param now the time
     * @param ready whether the coordinator has rebuilt its table
     * @param nothingMoving whether no handoff is in progress
     * @param nobodyLeaving whether no member is leaving gracefully
     * @return true to start a round
     */
    boolean nextRoundAtOnce(long now, boolean ready, boolean nothingMoving, boolean nobodyLeaving) {
        return ready && movedInLastRound > 0 && nothingMoving && nobodyLeaving && stable(now);
    }
}
