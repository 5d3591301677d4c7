package dev.sharding.internal.transport;

import dev.sharding.internal.codec.Varints;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Packs the frames sent to one member back to back into one transport message ("a batch"), so that the per-message
 * work of the JGroups stack (sequence numbers, credits, headers, one socket write) is paid once per batch instead
 * of once per tell.
 *
 * <p>A frame that follows a pause (the case of a lone ask or reply) goes straight to the channel on the caller's
 * thread, unchanged. Frames that follow each other closely are appended to the member's queue, and the member's
 * sender thread takes what is there and hands it to the channel: when senders are faster than the channel, frames
 * pile up behind the batch being sent and go out together in the next one.
 * Order is kept per member (and per out-of-band flag) because exactly one thread at a time takes frames from a
 * queue.
 *
 * <p>Backpressure, with a deadline ({@link Limits}): the bytes queued for one member are bounded. A thread that may
 * wait ({@link SendingThreads#mayWait()}) waits while the queue holds more than {@link Limits#waitAbove()}, but never
 * longer than {@link Limits#maxWaitNanos()}; then its frame is refused. A thread that never waits (a delivering
 * thread, the control thread) is refused at once when the queue holds {@link Limits#maxQueuedBytes()}. Control frames
 * (leases, shard homes) have a reserve above that bound, so that a queue full of data does not starve them. A frame
 * is never refused for being one too many: an empty queue takes any frame. The caller decides what a refusal means
 * (a tell dropped, an ask failed). A member that has taken nothing for {@link Limits#stuckNanos()} (a second, or the
 * longest wait if longer: frames wait and no send to it completes, or one send to it does not return) gets no more
 * data frames at all, room or not, until it takes some again: a small ask to a stuck member fails at once instead of
 * waiting for its timeout in the queue. A
 * member that stays behind is the transport's to report ({@link OutboxPeer#behindNanos}).
 *
 * <p>No thread but the member's sender thread calls the channel when the member may be slow: a lone frame goes out on
 * its caller's thread only while nothing is being sent to that member and the channel says a send would not wait for
 * flow-control credits ({@link Channel#ready}).
 *
 * <p>The batches are written in {@link BatchFormat}.
 *
 * <p>This class holds what the parts share: the channel as they use it, the limits and the ways to wait. Each member
 * has an {@link OutboxPeer} (its sender thread, the room left in its queues, how far behind it is) with two
 * {@link OutboxQueue}s, regular and out of band, which send a lone frame inline or queue it, and batch what they
 * take.
 */
public final class Outbox {

    /** The first byte of a batch ({@link BatchFormat}). */
    public static final byte BATCH_MAGIC = BatchFormat.MAGIC;

    /** Where a batch is cut: below the fragmentation size of the default stack. */
    static final int MAX_BATCH_BYTES = 32 * 1024;

    /**
     * A frame that comes this long after the one before it, to an idle queue, is sent on the caller's thread: a lone
     * ask or reply pays no thread hand-off. Frames closer together go through the sender thread, which batches
     * them.
     */
    static final long INLINE_GAP_NANOS = 50_000;

    /** Channel send, as the transport does it. */
    interface Channel {
        /**
         * Sends one message; may block while the destination has no flow-control credits or no room in its socket.
         *
         * @param destination where to
         * @param buffer the array
         * @param offset where the message starts
         * @param length its length
         * @param outOfBand whether it is out of band
         */
        void send(Object destination, byte[] buffer, int offset, int length, boolean outOfBand);

        /**
         * Whether a message of this length to the destination would go out now without waiting for flow-control
         * credits: a lone frame is sent on its caller's thread only then.
         *
         * @param destination where to
         * @param length the message's length
         * @return true when it would not wait, as far as the channel can tell
         */
        default boolean ready(Object destination, int length) {
            return true;
        }
    }

    /**
     * How many bytes one member's queues may hold, and how long a sender waits for room.
     *
     * @param waitAbove the queued bytes above which a thread that may wait waits for room
     * @param maxQueuedBytes the queued bytes beyond which a data frame is refused, whoever sends it
     * @param controlReserve the bytes a control frame may queue beyond {@code maxQueuedBytes}
     * @param maxWaitNanos the longest one of the node's own threads waits for room before its frame is refused
     * @param stuckNanos how long a member may take nothing while frames wait before it gets no more data frames
     * @param patientWaitNanos the longest an application's thread waits for room for a tell, while the member keeps
     *     taking frames ({@link Wait#PATIENT})
     */
    record Limits(
            long waitAbove,
            long maxQueuedBytes,
            long controlReserve,
            long maxWaitNanos,
            long stuckNanos,
            long patientWaitNanos) {

        /** How long a member may take nothing before it gets no more data frames, unless the longest wait is longer. */
        static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(1);

        /** The longest patient wait when none is given: the default time after which a member behind is suspected. */
        static final long PATIENT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

        /**
         * Limits whose member is stuck after the longest wait, or a second, whichever is longer.
         *
         * @param waitAbove the queued bytes above which a thread that may wait waits
         * @param maxQueuedBytes the bound of data frames
         * @param controlReserve the reserve of control frames
         * @param maxWaitNanos the longest wait
         * @param stuckNanos how long a member may take nothing
         */
        Limits(long waitAbove, long maxQueuedBytes, long controlReserve, long maxWaitNanos, long stuckNanos) {
            this(
                    waitAbove,
                    maxQueuedBytes,
                    controlReserve,
                    maxWaitNanos,
                    stuckNanos,
                    Math.max(maxWaitNanos, PATIENT_WAIT_NANOS));
        }

        /**
         * Limits whose member is stuck after the longest wait, or a second, whichever is longer.
         *
         * @param waitAbove the queued bytes above which a thread that may wait waits
         * @param maxQueuedBytes the bound of data frames
         * @param controlReserve the reserve of control frames
         * @param maxWaitNanos the longest wait
         */
        Limits(long waitAbove, long maxQueuedBytes, long controlReserve, long maxWaitNanos) {
            this(waitAbove, maxQueuedBytes, controlReserve, maxWaitNanos, Math.max(maxWaitNanos, STUCK_NANOS));
        }

        /**
         * The limits for a bound and a longest wait: threads that may wait wait above a quarter of the bound, and
         * control frames have a quarter of it in reserve.
         *
         * @param maxQueuedBytes the bound
         * @param maxWaitNanos the longest wait
         * @return the limits
         */
        static Limits of(long maxQueuedBytes, long maxWaitNanos) {
            return new Limits(maxQueuedBytes / 4, maxQueuedBytes, maxQueuedBytes / 4, maxWaitNanos);
        }

        /**
         * The limits for a bound, a longest wait and a longest patient wait.
         *
         * @param maxQueuedBytes the bound
         * @param maxWaitNanos the longest wait of the node's own threads
         * @param patientWaitNanos the longest wait of an application's thread sending a tell
         * @return the limits
         */
        static Limits of(long maxQueuedBytes, long maxWaitNanos, long patientWaitNanos) {
            return new Limits(
                    maxQueuedBytes / 4,
                    maxQueuedBytes,
                    maxQueuedBytes / 4,
                    maxWaitNanos,
                    Math.max(maxWaitNanos, STUCK_NANOS),
                    Math.max(maxWaitNanos, patientWaitNanos));
        }
    }

    /** How a sender may wait for room toward a member. */
    enum Wait {
        /** Never: a delivering thread, the control thread. Refused at once at the bound. */
        NEVER,
        /** At most {@link Limits#maxWaitNanos()}: the node's own threads (entities, store), and asks and replies. */
        BOUNDED,
        /**
         * A tell from an application's thread: waits while the member keeps taking frames, at most
         * {@link Limits#patientWaitNanos()}, so that a sender faster than a healthy member is slowed down rather than
         * losing tells; refused once the member has taken nothing for {@link Limits#stuckNanos()}.
         */
        PATIENT,
        /**
         * The messages a region held while it waited for a shard's home, sent on once the home is known: never waits
         * and is never refused for room (the region's buffer bounded them already), so that nothing buffered during a
         * handoff is lost to a burst.
         */
        FLUSH
    }

    /** Which bounds a frame meets in a member's queues. */
    enum Priority {
        /** Refused at the queue's bound, and at once while the member is stuck. */
        DATA,
        /**
         * Leases, shard homes and the like: never waits for room, may use the control reserve above the bound, and is
         * not refused for a stuck member, so that a queue full of data does not starve what keeps the cluster running.
         */
        CONTROL
    }

    private Outbox() {}

    /**
     * The size of an unsigned varint.
     *
     * @param value the value, not negative
     * @return its size in bytes
     */
    public static int varintSize(int value) {
        return Varints.size(value);
    }

    /**
     * Writes an unsigned varint.
     *
     * @param out the array
     * @param pos where
     * @param value the value, not negative
     * @return the position after it
     */
    public static int writeVarint(byte[] out, int pos, int value) {
        return Varints.write(out, pos, value);
    }

    /**
     * Splits a batch and hands each frame to {@code sink} ({@link BatchFormat#unpack}).
     *
     * @return null when the batch was whole, else why the rest of it was dropped
     */
    public static @Nullable String unpack(byte[] buffer, int offset, int length, BatchFormat.FrameSink sink) {
        return BatchFormat.unpack(buffer, offset, length, sink);
    }
}
