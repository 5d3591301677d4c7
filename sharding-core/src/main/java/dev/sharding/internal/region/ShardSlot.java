package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.internal.transport.SendingThreads;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What a region knows of one shard, and the only class that changes it: the shard's home, the local shard when the home
 * is this node, the messages that wait while the home is unknown, and, at the owner, the shard's handoff.
 *
 * <p>The home is read without a lock on the hot path ({@link #home}). It is only set by the control thread, holding
 * this slot's monitor, <em>after</em> the buffered messages were sent on ({@link #publish}), so a caller that sees a
 * home can never overtake a message it buffered earlier. A caller that sees no home buffers under the same monitor
 * ({@link #homeOrBuffer}), so it either sees the home published or its message is sent on by the publish. The buffer
 * and whether the home was asked for are guarded by the monitor.
 *
 * <p>The slot counts the threads between reading the home and finishing the send ({@link #enterSend}, callers and
 * transport threads). When a handoff begins, the control thread clears the home ({@link #clearHome}) and waits until
 * the slot is {@link #quiet} before acknowledging, so every message sent on the old home has left before the
 * acknowledgement does.
 *
 * <p>The local shard and the handoff are set by the control thread only; the local shard is read by any thread.
 */
final class ShardSlot {

    /** What a slot's buffer needs of its region: the bounds over all its slots, the sends, the coordinator. */
    interface Buffers {

        /**
         * Counts an item against the region's bounds before it joins a buffer. When they are full, the item's sender
         * is answered (a local tell throws) and the item is not buffered.
         *
         * @return whether the item may join the buffer
         */
        boolean admit(ShardSlot slot, Buffered item);

        /** An item left the buffer: it no longer counts against the bounds. */
        void released(Buffered item);

        /** Sends a buffered item on to the shard's home, in buffer order, while the home is being published. */
        void flush(ShardSlot slot, Member home, Buffered item);

        /** Asks the coordinator for the shard's home, on the control thread. Any thread. */
        void requestHome(ShardSlot slot);

        /** A buffered item goes no further: its sender hears why, or its tell is counted as dropped. */
        void dropped(Buffered item, RuntimeException reason);
    }

    private final int shardId;

    private volatile @Nullable Member home;

    private volatile @Nullable Shard local;

    private final AtomicInteger senders = new AtomicInteger();

    private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();

    /** Whether the coordinator was asked for the home of the buffered messages. */
    private boolean requested;

    /** At the owner: the handoff of the shard hosted here, from its first acknowledgement or {@code HandOff}. */
    private @Nullable ShardHandOff handOff;

    ShardSlot(int shardId) {
        this.shardId = shardId;
    }

    int shardId() {
        return shardId;
    }

    /** The shard's home as published, or {@code null} while it is unknown. Any thread, without a lock. */
    @Nullable
    Member home() {
        return home;
    }

    /** The shard hosted here, or {@code null}. Any thread. */
    @Nullable
    Shard local() {
        return local;
    }

    // ---- senders ----------------------------------------------------------------------------------------------

    /** A thread is about to read the home and send on it; {@link #leaveSend} follows in a {@code finally}. */
    void enterSend() {
        senders.incrementAndGet();
    }

    /** The thread has sent, or buffered, what it read the home for. */
    void leaveSend() {
        senders.decrementAndGet();
    }

    /** Whether no thread is between reading the home and finishing its send. */
    boolean quiet() {
        return senders.get() == 0;
    }

    // ---- the home and the buffer ------------------------------------------------------------------------------

    /**
     * The home, read again under the monitor; when there is none, the item joins the buffer (if the region's bounds
     * admit it) and the coordinator is asked for the home once.
     *
     * @return the home to send to, or {@code null} when the item was buffered or refused
     */
    @Nullable
    Member homeOrBuffer(Buffered item, Buffers buffers) {
        synchronized (this) {
            Member h = home;
            if (h != null) {
                return h;
            }
            if (buffers.admit(this, item)) {
                buffer.addLast(item);
                if (!requested) {
                    requested = true;
                    buffers.requestHome(this);
                }
            }
            return null;
        }
    }

    /** Sends the buffer on to the home, in order, and only then publishes the home. Control thread. */
    void publish(Member newHome, Buffers buffers) {
        synchronized (this) {
            if (!buffer.isEmpty()) {
                // what the buffer held is queued toward the home whatever its queue holds: the buffer bounded it
                SendingThreads.beginFlush();
                try {
                    Buffered item;
                    while ((item = buffer.pollFirst()) != null) {
                        buffers.released(item);
                        buffers.flush(this, newHome, item);
                    }
                } finally {
                    SendingThreads.endFlush();
                }
            }
            requested = false;
            home = newHome;
        }
    }

    /** Forgets the home: messages are buffered from now on. Control thread. */
    void clearHome() {
        synchronized (this) {
            home = null;
        }
    }

    /** Forgets the home if it is {@code member}. Control thread. */
    void clearHomeAt(Member member) {
        synchronized (this) {
            Member h = home;
            if (h != null && h.equals(member)) {
                home = null;
            }
        }
    }

    /** Forgets the home (its member leaves the view) and asks for it again if messages wait. Control thread. */
    void forgetHome(Buffers buffers) {
        synchronized (this) {
            home = null;
            if (!buffer.isEmpty() && !requested) {
                requested = true;
                buffers.requestHome(this);
            }
        }
    }

    /**
     * Frees the room of buffered asks that timed out, and says whether messages still wait for an unknown home; they
     * then count as asked for. Control thread.
     *
     * @return whether the caller should ask the coordinator for the home again
     */
    boolean retry(Buffers buffers) {
        synchronized (this) {
            if (buffer.isEmpty()) {
                return false;
            }
            buffer.removeIf(item -> {
                if (item instanceof Buffered.Local l
                        && l.ask() != null
                        && l.ask().isDone()) {
                    buffers.released(item);
                    return true;
                }
                return false;
            });
            boolean again = home == null && !buffer.isEmpty();
            if (again) {
                requested = true;
            }
            return again;
        }
    }

    /** Empties the buffer, every item going no further for {@code reason}. */
    void dropBuffer(RuntimeException reason, Buffers buffers) {
        synchronized (this) {
            Buffered item;
            while ((item = buffer.pollFirst()) != null) {
                buffers.released(item);
                buffers.dropped(item, reason);
            }
            requested = false;
        }
    }

    // ---- the shard hosted here, and its handoff ---------------------------------------------------------------

    /** The shard is hosted here from now on. Control thread. */
    void host(Shard shard) {
        local = shard;
    }

    /**
     * Forgets the shard hosted here, and its handoff, if it is still {@code shard}. Control thread.
     *
     * @return false when another incarnation, or none, is hosted now
     */
    boolean unhost(Shard shard) {
        if (local != shard) {
            return false;
        }
        local = null;
        handOff = null;
        return true;
    }

    /** The handoff of the shard hosted here, or {@code null}. Control thread. */
    @Nullable
    ShardHandOff handOff() {
        return handOff;
    }

    /** The handoff of the shard hosted here, begun now if there was none. Control thread. */
    ShardHandOff handOff(Function<ShardSlot, ShardHandOff> begin) {
        ShardHandOff h = handOff;
        if (h == null) {
            h = begin.apply(this);
            handOff = h;
        }
        return h;
    }
}
