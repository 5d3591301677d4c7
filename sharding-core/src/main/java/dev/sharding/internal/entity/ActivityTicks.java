package dev.sharding.internal.entity;

/**
 * When an entity last took a message, kept in 32 bits: the node's coarse clock in ticks of {@link #TICK_MILLIS}
 * rounded up, of which a cell keeps the low 32 bits (a node holds millions of cells, and a {@code long} would make
 * each 8 bytes larger). The time is restored against the clock now, as the latest time with those low bits that is
 * at most about a year from now ({@code 2^31} ticks): exact for every entity idle for less than that.
 *
 * <p>Rounding up makes an entity look active up to a tick later than it was, never earlier: an idle pass then
 * passivates it at most a tick late (the coarse clock itself moves in steps of 20 ms or more), and never one that took
 * a message after the time the pass asks about.
 */
final class ActivityTicks {

    /** The length of a tick. */
    static final long TICK_MILLIS = 16;

    private ActivityTicks() {}

    /**
     * A time, as kept.
     *
     * @param millis the coarse clock's time
     * @return its tick, rounded up, in 32 bits
     */
    static int of(long millis) {
        return (int) ceilTicks(millis);
    }

    /**
     * A time kept by {@link #of}, restored.
     *
     * @param ticks the time, as kept
     * @param nowMillis the coarse clock's time now (an entity may have been stamped a moment after it was read)
     * @return the time in milliseconds, on a tick
     */
    static long millis(int ticks, long nowMillis) {
        long now = ceilTicks(nowMillis);
        return (now - ((int) now - ticks)) * TICK_MILLIS;
    }

    private static long ceilTicks(long millis) {
        return -Math.floorDiv(-millis, TICK_MILLIS);
    }
}
