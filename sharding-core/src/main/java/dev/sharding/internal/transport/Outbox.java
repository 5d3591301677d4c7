package dev.sharding.internal.transport;

import dev.sharding.internal.codec.Varints;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
 * member that stays behind is the transport's to report ({@link Peer#behindNanos}).
 *
 * <p>No thread but the member's sender thread calls the channel when the member may be slow: a lone frame goes out on
 * its caller's thread only while nothing is being sent to that member and the channel says a send would not wait for
 * flow-control credits ({@link Channel#ready}).
 *
 * <p>The batches are written in {@link BatchFormat}.
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

    /** How many batches of one queue the sender thread sends before looking at the other queue. */
    private static final int BATCHES_PER_TURN = 8;

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

    private Outbox() {}

    /**
     * The queues of one member, regular and out of band, and the thread that sends them. A member has a thread of
     * its own so that one that stops granting flow-control credits or reading its socket (slow, hung, not yet
     * suspected) holds up only the frames sent to it.
     */
    static final class Peer {

        private final Channel channel;

        private final Object address;

        private final Limits limits;

        private final Queue regular;

        private final Queue outOfBand;

        private final Thread thread;

        private volatile boolean parked;

        private volatile boolean closed;

        private final AtomicLong messages = new AtomicLong();

        private final AtomicLong frames = new AtomicLong();

        /** The bytes in both queues. */
        private final AtomicLong queued = new AtomicLong();

        /** Frames refused for want of room. */
        private final AtomicLong refused = new AtomicLong();

        /** When a channel send to the member last completed, or the queue last went from empty to not. */
        private volatile long lastProgressNanos = System.nanoTime();

        /**
         * Starts the sender thread of one member.
         *
         * @param name the thread's name
         * @param channel sends
         * @param address the member's channel address
         * @param limits the bounds of its queues
         */
        Peer(String name, Channel channel, Object address, Limits limits) {
            this.channel = channel;
            this.address = address;
            this.limits = limits;
            this.regular = new Queue(false);
            this.outOfBand = new Queue(true);
            this.thread = new Thread(this::loop, name);
            this.thread.setDaemon(true);
            this.thread.start();
        }

        /**
         * Queues a data frame, or sends it at once: a whole array, or a slice (which the caller must not change
         * afterwards).
         *
         * @param buffer the array
         * @param offset where the frame starts
         * @param length its length
         * @param oob whether it may overtake regular frames
         * @param mayWait whether the caller may wait for room, and send a lone frame on its own thread; false for the
         *     threads {@link SendingThreads#mayWait()} says never wait
         * @return false when the frame was refused for want of room: nothing was sent or queued
         */
        boolean send(byte[] buffer, int offset, int length, boolean oob, boolean mayWait) {
            return send(buffer, offset, length, oob, mayWait, false);
        }

        /**
         * Queues a frame, or sends it at once.
         *
         * @param buffer the array
         * @param offset where the frame starts
         * @param length its length
         * @param oob whether it may overtake regular frames
         * @param mayWait whether the caller may wait for room and send on its own thread
         * @param control whether it is a control frame: it never waits, and may use the reserve
         * @return false when the frame was refused for want of room
         */
        boolean send(byte[] buffer, int offset, int length, boolean oob, boolean mayWait, boolean control) {
            return send(buffer, offset, length, oob, mayWait ? Wait.BOUNDED : Wait.NEVER, control);
        }

        /**
         * Queues a frame, or sends it at once.
         *
         * @param buffer the array
         * @param offset where the frame starts
         * @param length its length
         * @param oob whether it may overtake regular frames
         * @param wait how the caller may wait for room
         * @param control whether it is a control frame: it never waits, and may use the reserve
         * @return false when the frame was refused for want of room
         */
        boolean send(byte[] buffer, int offset, int length, boolean oob, Wait wait, boolean control) {
            return (oob ? outOfBand : regular).send(buffer, offset, length, wait, control);
        }

        /**
         * Frames sent so far.
         *
         * @return the count
         */
        long frames() {
            return frames.get();
        }

        /**
         * Channel messages sent so far (batches and lone frames).
         *
         * @return the count
         */
        long messages() {
            return messages.get();
        }

        /**
         * The bytes queued now, in both queues.
         *
         * @return the bytes
         */
        long queuedBytes() {
            return queued.get();
        }

        /**
         * Frames refused so far for want of room.
         *
         * @return the count
         */
        long refused() {
            return refused.get();
        }

        /**
         * How long this member has been behind: frames waiting and no channel send completed, or one channel send
         * not returning.
         *
         * @param now {@link System#nanoTime()}
         * @return the time in nanoseconds, 0 when it keeps up
         */
        long behindNanos(long now) {
            long behind = queued.get() > 0 ? now - lastProgressNanos : 0;
            behind = Math.max(behind, regular.sendingFor(now));
            return Math.max(behind, outOfBand.sendingFor(now));
        }

        /**
         * Waits until every frame queued so far is handed to the channel, or the deadline passes.
         *
         * @param deadlineNanos the {@link System#nanoTime()} to give up at
         * @return true if nothing is left
         */
        boolean awaitSent(long deadlineNanos) {
            while (!closed && !(regular.idle() && outOfBand.idle())) {
                if (System.nanoTime() - deadlineNanos >= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, 100_000);
            }
            return true;
        }

        /** Stops the sender thread; frames still queued are dropped, as the channel drops frames to a gone member. */
        void close() {
            closed = true;
            LockSupport.unpark(thread);
        }

        private void loop() {
            while (!closed) {
                boolean sent = outOfBand.take(BATCHES_PER_TURN);
                sent |= regular.take(BATCHES_PER_TURN);
                if (!sent) {
                    parked = true;
                    if (outOfBand.isEmpty() && regular.isEmpty()) {
                        if (!closed) {
                            LockSupport.park(this);
                        }
                    } else {
                        // a frame was queued while the queue was being taken: look again shortly
                        LockSupport.parkNanos(this, 50_000);
                    }
                    parked = false;
                }
            }
        }

        /** Reserves room for a frame; false, having reserved nothing, when the queue holds {@code limit} or more. */
        private boolean reserve(int length, long limit) {
            while (true) {
                long current = queued.get();
                if (current != 0 && current + length > limit) {
                    return false;
                }
                if (queued.compareAndSet(current, current + length)) {
                    if (current == 0) {
                        lastProgressNanos = System.nanoTime();
                    }
                    return true;
                }
            }
        }

        /**
         * Reserves room, waiting for the queue to go below the waiting threshold: at most the longest wait, or, for a
         * patient sender, at most the longest patient wait and only while the member keeps taking frames.
         */
        private boolean reserveWaiting(int length, boolean patient) {
            if (reserve(length, limits.waitAbove())) {
                return true;
            }
            long start = System.nanoTime();
            long deadline = start + (patient ? limits.patientWaitNanos() : limits.maxWaitNanos());
            long waitNanos = 10_000;
            while (!closed) {
                long now = System.nanoTime();
                if (now - deadline >= 0 || (patient && behindNanos(now) > limits.stuckNanos())) {
                    return false;
                }
                LockSupport.parkNanos(this, waitNanos);
                waitNanos = Math.min(waitNanos * 2, TimeUnit.MILLISECONDS.toNanos(1));
                if (reserve(length, limits.waitAbove())) {
                    return true;
                }
            }
            return true; // closed: the frame is dropped with the rest
        }

        /** One ordering's queue. */
        private final class Queue {

            private final boolean oob;

            private final ConcurrentLinkedQueue<Object> frames = new ConcurrentLinkedQueue<>();

            /** Held by the one thread taking frames from the queue. */
            private final AtomicBoolean taking = new AtomicBoolean();

            /** When the last frame was given to this queue (racy: a hint only). */
            private volatile long lastSendNanos;

            /** When the channel send in progress from this queue began; 0 when none is. */
            private volatile long sendingSince;

            Queue(boolean oob) {
                this.oob = oob;
            }

            boolean isEmpty() {
                return frames.isEmpty();
            }

            boolean idle() {
                return frames.isEmpty() && !taking.get();
            }

            long sendingFor(long now) {
                long since = sendingSince;
                return since == 0 ? 0 : now - since;
            }

            boolean send(byte[] buffer, int offset, int length, Wait wait, boolean control) {
                if (closed) {
                    return true; // dropped, as the channel drops frames to a gone member
                }
                long now = System.nanoTime();
                long previous = lastSendNanos;
                lastSendNanos = now;
                if ((wait == Wait.BOUNDED || wait == Wait.PATIENT)
                        && now - previous > INLINE_GAP_NANOS
                        && queued.get() == 0
                        && regular.sendingSince == 0
                        && outOfBand.sendingSince == 0
                        && channel.ready(address, length)
                        && taking.compareAndSet(false, true)) {
                    // a frame after a pause goes out on the sender's thread: no hand-off to wait for
                    try {
                        if (frames.isEmpty()) {
                            Peer.this.frames.incrementAndGet();
                            messages.incrementAndGet();
                            channelSend(buffer, offset, length);
                            return true;
                        }
                    } finally {
                        taking.set(false);
                        if (!frames.isEmpty() && parked) {
                            LockSupport.unpark(thread);
                        }
                    }
                }
                if (!control && wait != Wait.FLUSH && behindNanos(now) > limits.stuckNanos()) {
                    // the member has taken nothing for a long while: refuse at once, even with room
                    refused.incrementAndGet();
                    return false;
                }
                boolean room = switch (wait) {
                    case FLUSH -> reserve(length, Long.MAX_VALUE);
                    case NEVER ->
                        reserve(
                                length,
                                control ? limits.maxQueuedBytes() + limits.controlReserve() : limits.maxQueuedBytes());
                    case BOUNDED, PATIENT ->
                        control
                                ? reserve(length, limits.maxQueuedBytes() + limits.controlReserve())
                                : reserveWaiting(length, wait == Wait.PATIENT);
                };
                if (!room) {
                    refused.incrementAndGet();
                    return false;
                }
                frames.offer(offset == 0 && length == buffer.length ? buffer : new Slice(buffer, offset, length));
                if (parked) {
                    LockSupport.unpark(thread);
                }
                return true;
            }

            /** Sends up to {@code maxBatches} batches unless another thread is taking; true if it sent any. */
            boolean take(int maxBatches) {
                if (frames.isEmpty() || !taking.compareAndSet(false, true)) {
                    return false;
                }
                boolean sent = false;
                try {
                    for (int b = 0; b < maxBatches && !closed; b++) {
                        Object first = frames.poll();
                        if (first == null) {
                            break;
                        }
                        sent = true;
                        Object second = frames.peek();
                        if (second == null || length(first) + length(second) + 11 > MAX_BATCH_BYTES) {
                            sendAlone(first);
                        } else {
                            sendBatch(first);
                        }
                    }
                } finally {
                    taking.set(false);
                }
                return sent;
            }

            private void channelSend(byte[] buffer, int offset, int length) {
                sendingSince = System.nanoTime() | 1; // never 0
                try {
                    channel.send(address, buffer, offset, length, oob);
                } finally {
                    sendingSince = 0;
                    lastProgressNanos = System.nanoTime();
                }
            }

            private void sendAlone(Object frame) {
                Peer.this.frames.incrementAndGet();
                messages.incrementAndGet();
                try {
                    if (frame instanceof byte[] bytes) {
                        channelSend(bytes, 0, bytes.length);
                    } else {
                        Slice s = (Slice) frame;
                        channelSend(s.buffer, s.offset, s.length);
                    }
                } finally {
                    queued.addAndGet(-length(frame));
                }
            }

            /** Takes frames while they fit and sends them as one batch. */
            private void sendBatch(Object first) {
                Object[] taken = new Object[16];
                int count = 0;
                int bytes = 1;
                Object next = first;
                while (true) {
                    int len = length(next);
                    if (count == taken.length) {
                        taken = java.util.Arrays.copyOf(taken, count * 2);
                    }
                    taken[count++] = next;
                    bytes += varintSize(len) + len;
                    Object peeked = frames.peek();
                    if (peeked == null || bytes + 5 + length(peeked) > MAX_BATCH_BYTES) {
                        break;
                    }
                    next = frames.poll();
                }
                byte[] batch = new byte[bytes];
                int pos = 0;
                batch[pos++] = BATCH_MAGIC;
                long payload = 0;
                for (int i = 0; i < count; i++) {
                    Object frame = taken[i];
                    int len = length(frame);
                    pos = writeVarint(batch, pos, len);
                    if (frame instanceof byte[] b) {
                        System.arraycopy(b, 0, batch, pos, len);
                    } else {
                        Slice s = (Slice) frame;
                        System.arraycopy(s.buffer, s.offset, batch, pos, len);
                    }
                    pos += len;
                    payload += len;
                }
                Peer.this.frames.addAndGet(count);
                messages.incrementAndGet();
                try {
                    channelSend(batch, 0, bytes);
                } finally {
                    queued.addAndGet(-payload);
                }
            }
        }
    }

    private static int length(Object frame) {
        return frame instanceof byte[] b ? b.length : ((Slice) frame).length;
    }
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

    private record Slice(byte[] buffer, int offset, int length) {}
}
