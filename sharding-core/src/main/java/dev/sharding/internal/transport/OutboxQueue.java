package dev.sharding.internal.transport;

import dev.sharding.internal.codec.Varints;
import dev.sharding.internal.transport.Outbox.Channel;
import dev.sharding.internal.transport.Outbox.Priority;
import dev.sharding.internal.transport.Outbox.Wait;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One ordering's queue toward a member, regular or out of band ({@link Outbox}): a frame after a pause goes out on
 * its caller's thread, others are queued within the room {@link OutboxPeer} grants, and the one thread taking frames
 * at a time sends them, as many as fit together in one batch ({@link BatchFormat}).
 *
 * <p>Thread-safe: any thread sends, one thread at a time takes.
 */
final class OutboxQueue {

    private final OutboxPeer peer;

    private final Channel channel;

    private final Object address;

    private final boolean oob;

    private final ConcurrentLinkedQueue<Object> frames = new ConcurrentLinkedQueue<>();

    /** Held by the one thread taking frames from the queue. */
    private final AtomicBoolean taking = new AtomicBoolean();

    /** When the last frame was given to this queue (racy: a hint only). */
    private volatile long lastSendNanos;

    /** When the channel send in progress from this queue began; 0 when none is. */
    private volatile long sendingSince;

    /**
     * @param peer the member's room, counts and sender thread
     * @param channel sends
     * @param address the member's channel address
     * @param oob whether this queue's frames are out of band
     */
    OutboxQueue(OutboxPeer peer, Channel channel, Object address, boolean oob) {
        this.peer = peer;
        this.channel = channel;
        this.address = address;
        this.oob = oob;
    }

    boolean isEmpty() {
        return frames.isEmpty();
    }

    /** Whether nothing is queued and nobody is taking. */
    boolean idle() {
        return frames.isEmpty() && !taking.get();
    }

    /** Whether a channel send from this queue is in progress. */
    boolean sending() {
        return sendingSince != 0;
    }

    /** How long the channel send in progress has been going on, 0 when none is. */
    long sendingFor(long now) {
        long since = sendingSince;
        return since == 0 ? 0 : now - since;
    }

    /**
     * Sends a frame at once, or queues it.
     *
     * @return false when the frame was refused for want of room
     */
    boolean send(byte[] buffer, int offset, int length, Wait wait, Priority priority) {
        if (peer.closed()) {
            return true; // dropped, as the channel drops frames to a gone member
        }
        long now = System.nanoTime();
        long previous = lastSendNanos;
        lastSendNanos = now;
        if ((wait == Wait.BOUNDED || wait == Wait.PATIENT)
                && now - previous > Outbox.INLINE_GAP_NANOS
                && peer.quiet(length)
                && taking.compareAndSet(false, true)) {
            // a frame after a pause goes out on the sender's thread: no hand-off to wait for
            try {
                if (frames.isEmpty()) {
                    peer.sent(1);
                    channelSend(buffer, offset, length);
                    return true;
                }
            } finally {
                taking.set(false);
                if (!frames.isEmpty()) {
                    peer.wake();
                }
            }
        }
        if (!peer.admit(length, wait, priority, now)) {
            return false;
        }
        frames.offer(offset == 0 && length == buffer.length ? buffer : new Slice(buffer, offset, length));
        peer.wake();
        return true;
    }

    /** Sends up to {@code maxBatches} batches unless another thread is taking; true if it sent any. */
    boolean take(int maxBatches) {
        if (frames.isEmpty() || !taking.compareAndSet(false, true)) {
            return false;
        }
        boolean sent = false;
        try {
            for (int b = 0; b < maxBatches && !peer.closed(); b++) {
                Object first = frames.poll();
                if (first == null) {
                    break;
                }
                sent = true;
                Object second = frames.peek();
                if (second == null || length(first) + length(second) + 11 > Outbox.MAX_BATCH_BYTES) {
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
            peer.progressed();
        }
    }

    private void sendAlone(Object frame) {
        peer.sent(1);
        try {
            if (frame instanceof byte[] bytes) {
                channelSend(bytes, 0, bytes.length);
            } else {
                Slice s = (Slice) frame;
                channelSend(s.buffer, s.offset, s.length);
            }
        } finally {
            peer.released(length(frame));
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
                taken = Arrays.copyOf(taken, count * 2);
            }
            taken[count++] = next;
            bytes += Varints.size(len) + len;
            Object peeked = frames.peek();
            if (peeked == null || bytes + 5 + length(peeked) > Outbox.MAX_BATCH_BYTES) {
                break;
            }
            next = frames.poll();
        }
        byte[] batch = new byte[bytes];
        int pos = 0;
        batch[pos++] = BatchFormat.MAGIC;
        long payload = 0;
        for (int i = 0; i < count; i++) {
            Object frame = taken[i];
            int len = length(frame);
            pos = Varints.write(batch, pos, len);
            if (frame instanceof byte[] b) {
                System.arraycopy(b, 0, batch, pos, len);
            } else {
                Slice s = (Slice) frame;
                System.arraycopy(s.buffer, s.offset, batch, pos, len);
            }
            pos += len;
            payload += len;
        }
        peer.sent(count);
        try {
            channelSend(batch, 0, bytes);
        } finally {
            peer.released(payload);
        }
    }

    private static int length(Object frame) {
        return frame instanceof byte[] b ? b.length : ((Slice) frame).length;
    }

    /** A frame that is part of a larger array. */
    private record Slice(byte[] buffer, int offset, int length) {}
}
