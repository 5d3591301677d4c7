package dev.sharding.internal.transport;

/**
 * The counters already seen from one sender, as a sliding window over the highest: a sealed message whose counter
 * was seen, or is older than the window, is a replay (or hopelessly late) and is dropped.
 *
 * <p>One counter serves all of a sender's messages, to every destination, and a sending thread can be descheduled
 * between taking its counter and writing the message while other threads send many more: on a loaded machine the
 * lag reaches thousands of messages. The window of {@value #SIZE} counters (32 KiB) tolerates about half a second of
 * that at the transport's top rate. A legitimate message older still is dropped like a replay; a reliable one is
 * then sent again by JGroups under a new counter, an unreliable one (a heartbeat) is lost as on a lossy network.
 */
final class ReplayWindow {

    /** How many counters below the highest are remembered. */
    static final int SIZE = 1 << 18;

    private final long[] seen = new long[SIZE / 64];

    private long highest;

    /** Counters up to this one are refused: they were seen before the window was forgotten. */
    private final long floor;

    /** A window that has seen nothing. */
    ReplayWindow() {
        this(0);
    }

    /**
     * A window that refuses every counter up to {@code floor}: the window of a sender heard again after it left.
     *
     * @param floor the highest counter seen before
     */
    ReplayWindow(long floor) {
        this.floor = floor;
        this.highest = floor;
    }

    /** The highest counter accepted so far (the floor when none). @return the counter */
    synchronized long highest() {
        return highest;
    }

    /**
     * Records a counter.
     *
     * @param counter the counter, at least 1
     * @return whether it is new; {@code false} for a replay or a counter older than the window
     */
    synchronized boolean accept(long counter) {
        if (counter <= floor) {
            return false;
        }
        if (counter > highest) {
            long shift = counter - highest;
            if (shift >= SIZE) {
                java.util.Arrays.fill(seen, 0);
            } else {
                for (long c = highest + 1; c <= counter; c++) {
                    clear(c);
                }
            }
            highest = counter;
            set(counter);
            return true;
        }
        if (highest - counter >= SIZE || isSet(counter)) {
            return false;
        }
        set(counter);
        return true;
    }

    private void set(long c) {
        int bit = (int) (c % SIZE);
        seen[bit >>> 6] |= 1L << (bit & 63);
    }

    private void clear(long c) {
        int bit = (int) (c % SIZE);
        seen[bit >>> 6] &= ~(1L << (bit & 63));
    }

    private boolean isSet(long c) {
        int bit = (int) (c % SIZE);
        return (seen[bit >>> 6] & (1L << (bit & 63))) != 0;
    }
}
