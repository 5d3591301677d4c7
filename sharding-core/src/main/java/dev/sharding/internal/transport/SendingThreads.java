package dev.sharding.internal.transport;

/**
 * Which threads may wait to send a frame, and for how long ({@link Outbox.Wait}). A sender that may wait waits when
 * the member's queue is over its waiting threshold, and writes a lone frame itself when the member keeps up:
 *
 * <ul>
 * <li>the node's own threads that may wait (those that run entities, marked by {@link #nodeThread()}, and the
 * store's), and every ask or reply, wait for {@code sharding.backpressure.max-wait} at most, so that one slow member
 * holds up neither the entities nor the durable writes of the node;</li>
 * <li>a tell from an application's thread waits longer, while the member keeps taking frames: a sender faster than
 * a healthy member is slowed down, as a blocking send would be, instead of losing tells.</li>
 * </ul>
 *
 * <p>Two kinds of threads must never wait; their frames are always queued for the member's sender thread instead, or
 * refused when the queue is at its bound ({@link Outbox}):
 *
 * <ul>
 * <li>a thread delivering a message (see {@link DeliveryRelay}): while it waits, nothing more is read from its
 * connection;</li>
 * <li>a thread marked with {@link #neverWait()}: the node's control thread, which renews every member's lease and
 * answers every request for a shard's home, so that one member that stopped reading (hung, not yet suspected) does
 * not hold up what goes to all the others.</li>
 * </ul>
 *
 * <p>A region sending on the messages it held while it waited for a shard's home marks the sending with
 * {@link #beginFlush()}: those frames are queued whatever the queue holds ({@link Outbox.Wait#FLUSH}), since the
 * region's buffer bounded them already and a handoff must not lose what it buffered.
 */
public final class SendingThreads {

    /**
     * Per thread: [0] how deep it is in deliveries, [1] 1 once it never waits, [2] 1 once it is one of the node's own
     * threads, [3] how deep it is in flushes of a region's buffer.
     */
    private static final ThreadLocal<int[]> STATE = ThreadLocal.withInitial(() -> new int[4]);

    private SendingThreads() {}

    /** Marks the current thread, for as long as it lives, as one that never waits to send. */
    public static void neverWait() {
        STATE.get()[1] = 1;
    }

    /**
     * Marks the current thread, for as long as it lives, as one of the node's own (it runs entities, or completes the
     * store's writes): it waits at most {@code sharding.backpressure.max-wait} for room, also for a tell.
     */
    public static void nodeThread() {
        int[] s = STATE.get();
        if (s[2] == 0) {
            s[2] = 1;
        }
    }

    /** The current thread starts sending on the messages a region held for a shard's home; undo with {@link #endFlush}. */
    public static void beginFlush() {
        STATE.get()[3]++;
    }

    /** The current thread is done sending on a region's held messages. */
    public static void endFlush() {
        STATE.get()[3]--;
    }

    /**
     * How the current thread may wait to send a data frame.
     *
     * @param tell whether the frame is a tell (no reply expected)
     * @return the way to wait
     */
    static Outbox.Wait dataWait(boolean tell) {
        int[] s = STATE.get();
        if (s[3] > 0) {
            return Outbox.Wait.FLUSH;
        }
        if (s[0] != 0 || s[1] != 0) {
            return Outbox.Wait.NEVER;
        }
        return tell && s[2] == 0 ? Outbox.Wait.PATIENT : Outbox.Wait.BOUNDED;
    }

    /**
     * Whether the current thread may wait to send.
     *
     * @return false on a delivering thread and on a thread marked with {@link #neverWait()}
     */
    public static boolean mayWait() {
        int[] s = STATE.get();
        return s[0] == 0 && s[1] == 0;
    }

    /**
     * Whether the current thread is delivering a message of a channel.
     *
     * @return true while it delivers
     */
    static boolean delivering() {
        return STATE.get()[0] > 0;
    }

    /** The current thread's state, for {@link DeliveryRelay} to count deliveries in. */
    static int[] state() {
        return STATE.get();
    }
}
