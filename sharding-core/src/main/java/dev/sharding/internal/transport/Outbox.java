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
 * <p>Backpressure: a destination holding more than {@code maxPendingBytes} makes its senders wait, or send the
 * queue themselves when nobody else is, until it is below again. A frame is never dropped for being one too many.
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
         * Sends one message; may block while the destination has no flow-control credits.
         *
         * @param destination where to
         * @param buffer the array
         * @param offset where the message starts
         * @param length its length
         * @param outOfBand whether it is out of band
         */
        void send(Object destination, byte[] buffer, int offset, int length, boolean outOfBand);
    }

    private Outbox() {}

    /**
     * The queues of one member, regular and out of band, and the thread that sends them. A member has a thread of
     * its own so that one that stops granting flow-control credits (hung, not yet suspected) holds up only the
     * frames sent to it, as a blocking send did.
     */
    static final class Peer {

        private final Channel channel;

        private final Object address;

        private final long maxPendingBytes;

        private final Queue regular;

        private final Queue outOfBand;

        private final Thread thread;

        private volatile boolean parked;

        private volatile boolean closed;

        private final AtomicLong messages = new AtomicLong();

        private final AtomicLong frames = new AtomicLong();

        /**
         * Starts the sender thread of one member.
         *
         * @param name the thread's name
         * @param channel sends
         * @param address the member's channel address
         * @param maxPendingBytes the bytes a queue may hold before its senders wait
         */
        Peer(String name, Channel channel, Object address, long maxPendingBytes) {
            this.channel = channel;
            this.address = address;
            this.maxPendingBytes = maxPendingBytes;
            this.regular = new Queue(false);
            this.outOfBand = new Queue(true);
            this.thread = new Thread(this::loop, name);
            this.thread.setDaemon(true);
            this.thread.start();
        }

        /**
         * Queues a frame: a whole array, or a slice (which the caller must not change afterwards).
         *
         * @param buffer the array
         * @param offset where the frame starts
         * @param length its length
         * @param oob whether it may overtake regular frames
         * @param queued whether the caller must not wait: the frame is queued for the sender thread, never sent on
         *     the caller's thread, and the caller does not wait for room ({@link SendingThreads#mayWait()})
         */
        void send(byte[] buffer, int offset, int length, boolean oob, boolean queued) {
            (oob ? outOfBand : regular).send(buffer, offset, length, queued);
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
                        // a waiting sender is taking a queue itself: look again shortly
                        LockSupport.parkNanos(this, 50_000);
                    }
                    parked = false;
                }
            }
        }

        /** One ordering's queue. */
        private final class Queue {

            private final boolean oob;

            private final ConcurrentLinkedQueue<Object> frames = new ConcurrentLinkedQueue<>();

            private final AtomicLong pendingBytes = new AtomicLong();

            /** Held by the one thread taking frames from the queue. */
            private final AtomicBoolean taking = new AtomicBoolean();

            /** When the last frame was given to this queue (racy: a hint only). */
            private volatile long lastSendNanos;

            Queue(boolean oob) {
                this.oob = oob;
            }

            boolean isEmpty() {
                return frames.isEmpty();
            }

            boolean idle() {
                return frames.isEmpty() && !taking.get();
            }

            void send(byte[] buffer, int offset, int length, boolean queued) {
                if (closed) {
                    return;
                }
                long now = System.nanoTime();
                long previous = lastSendNanos;
                lastSendNanos = now;
                if (!queued
                        && now - previous > INLINE_GAP_NANOS
                        && frames.isEmpty()
                        && taking.compareAndSet(false, true)) {
                    // a frame after a pause goes out on the sender's thread: no hand-off to wait for
                    try {
                        if (frames.isEmpty()) {
                            Peer.this.frames.incrementAndGet();
                            messages.incrementAndGet();
                            channel.send(address, buffer, offset, length, oob);
                            return;
                        }
                    } finally {
                        taking.set(false);
                        if (!frames.isEmpty() && parked) {
                            LockSupport.unpark(thread);
                        }
                    }
                }
                frames.offer(offset == 0 && length == buffer.length ? buffer : new Slice(buffer, offset, length));
                long pending = pendingBytes.addAndGet(length);
                if (parked) {
                    LockSupport.unpark(thread);
                }
                if (pending > maxPendingBytes && !queued) {
                    awaitRoom();
                }
            }

            /** Waits until this queue is below its limit, sending its frames itself when nobody else is. */
            private void awaitRoom() {
                long waitNanos = 10_000;
                while (pendingBytes.get() > maxPendingBytes && !closed) {
                    if (!take(Integer.MAX_VALUE)) {
                        LockSupport.parkNanos(this, waitNanos);
                        waitNanos = Math.min(waitNanos * 2, TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }
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
                            pendingBytes.addAndGet(-length(first));
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

            private void sendAlone(Object frame) {
                Peer.this.frames.incrementAndGet();
                messages.incrementAndGet();
                if (frame instanceof byte[] bytes) {
                    channel.send(address, bytes, 0, bytes.length, oob);
                } else {
                    Slice s = (Slice) frame;
                    channel.send(address, s.buffer, s.offset, s.length, oob);
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
                pendingBytes.addAndGet(-payload);
                Peer.this.frames.addAndGet(count);
                messages.incrementAndGet();
                channel.send(address, batch, 0, bytes, oob);
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
