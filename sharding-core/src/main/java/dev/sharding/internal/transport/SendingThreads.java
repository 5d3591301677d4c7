package dev.sharding.internal.transport;

/**
 * Which threads may wait to send a frame. A sender that may wait waits, for {@code sharding.backpressure.max-wait} at
 * most, when the member's queue is over its waiting threshold, and writes a lone frame itself when the member keeps
 * up: right for the application's, the entities' and the store's threads, whose waiting is the backpressure. Two kinds
 * of threads must never wait; their frames are always queued for the member's sender thread instead, or refused when
 * the queue is at its bound ({@link Outbox}):
 *
 * <ul>
 * <li>a thread delivering a message (see {@link DeliveryRelay}): while it waits, nothing more is read from its
 * connection;</li>
 * <li>a thread marked with {@link #neverWait()}: the node's control thread, which renews every member's lease and
 * answers every request for a shard's home, so that one member that stopped reading (hung, not yet suspected) does
 * not hold up what goes to all the others.</li>
 * </ul>
 */
public final class SendingThreads {

    /** Per thread: [0] how deep it is in deliveries, [1] 1 once it never waits. */
    private static final ThreadLocal<int[]> STATE = ThreadLocal.withInitial(() -> new int[2]);

    private SendingThreads() {}

    /** Marks the current thread, for as long as it lives, as one that never waits to send. */
    public static void neverWait() {
        STATE.get()[1] = 1;
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
