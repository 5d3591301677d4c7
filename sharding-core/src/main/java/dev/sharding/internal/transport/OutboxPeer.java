package dev.sharding.internal.transport;

import dev.sharding.internal.transport.Outbox.Channel;
import dev.sharding.internal.transport.Outbox.Limits;
import dev.sharding.internal.transport.Outbox.Priority;
import dev.sharding.internal.transport.Outbox.Wait;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The queues of one member, regular and out of band, and the thread that sends them ({@link Outbox}). A member has a
 * thread of its own so that one that stops granting flow-control credits or reading its socket (slow, hung, not yet
 * suspected) holds up only the frames sent to it. This class also keeps the room left toward the member (the bytes
 * queued, bounded by {@link Limits}) and how far behind it is.
 *
 * <p>Thread-safe: any thread sends, the member's sender thread takes.
 */
final class OutboxPeer {

    /** How many batches of one queue the sender thread sends before looking at the other queue. */
    private static final int BATCHES_PER_TURN = 8;

    private final Channel channel;

    private final Object address;

    private final Limits limits;

    private final OutboxQueue regular;

    private final OutboxQueue outOfBand;

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
    OutboxPeer(String name, Channel channel, Object address, Limits limits) {
        this.channel = channel;
        this.address = address;
        this.limits = limits;
        this.regular = new OutboxQueue(this, channel, address, false);
        this.outOfBand = new OutboxQueue(this, channel, address, true);
        this.thread = new Thread(this::loop, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Queues a frame, or sends it at once: a whole array, or a slice (which the caller must not change afterwards).
     *
     * @param buffer the array
     * @param offset where the frame starts
     * @param length its length
     * @param oob whether it may overtake regular frames
     * @param wait how the caller may wait for room, and whether it may send a lone frame on its own thread
     * @param priority which bounds the frame meets
     * @return false when the frame was refused for want of room: nothing was sent or queued
     */
    boolean send(byte[] buffer, int offset, int length, boolean oob, Wait wait, Priority priority) {
        return (oob ? outOfBand : regular).send(buffer, offset, length, wait, priority);
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

    // ---- for the queues ------------------------------------------------------------------------------------------

    /** Whether the sender thread was stopped: frames are dropped, as the channel drops frames to a gone member. */
    boolean closed() {
        return closed;
    }

    /**
     * Whether nothing is queued or being sent to the member, and the channel would take a frame of this length now:
     * a lone frame may then go out on its caller's thread.
     */
    boolean quiet(int length) {
        return queued.get() == 0 && !regular.sending() && !outOfBand.sending() && channel.ready(address, length);
    }

    /**
     * Reserves room for a frame, or refuses it: a member stuck for long gets no data frame at all, and the room a
     * sender waits for or the bound it meets depends on how it may wait.
     *
     * @param length the frame's length
     * @param wait how the sender may wait
     * @param priority which bounds the frame meets
     * @param now {@link System#nanoTime()}
     * @return false, having reserved nothing, when the frame is refused
     */
    boolean admit(int length, Wait wait, Priority priority, long now) {
        boolean control = priority == Priority.CONTROL;
        if (!control && wait != Wait.FLUSH && behindNanos(now) > limits.stuckNanos()) {
            // the member has taken nothing for a long while: refuse at once, even with room
            refused.incrementAndGet();
            return false;
        }
        boolean room = switch (wait) {
            case FLUSH -> reserve(length, Long.MAX_VALUE);
            case NEVER ->
                reserve(length, control ? limits.maxQueuedBytes() + limits.controlReserve() : limits.maxQueuedBytes());
            case BOUNDED, PATIENT ->
                control
                        ? reserve(length, limits.maxQueuedBytes() + limits.controlReserve())
                        : reserveWaiting(length, wait);
        };
        if (!room) {
            refused.incrementAndGet();
        }
        return room;
    }

    /** Counts what one channel message carried. */
    void sent(int frameCount) {
        frames.addAndGet(frameCount);
        messages.incrementAndGet();
    }

    /** A channel send to the member completed (or failed): it is making progress. */
    void progressed() {
        lastProgressNanos = System.nanoTime();
    }

    /** Frames of these bytes left the queue. */
    void released(long bytes) {
        queued.addAndGet(-bytes);
    }

    /** Wakes the sender thread if it sleeps: a frame is queued. */
    void wake() {
        if (parked) {
            LockSupport.unpark(thread);
        }
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
    private boolean reserveWaiting(int length, Wait wait) {
        boolean patient = wait == Wait.PATIENT;
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
}
