package dev.sharding.internal.region;

import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.EntityEnvelope;
import org.jspecify.annotations.Nullable;

/**
 * A message waiting in a {@link ShardSlot}'s buffer for its shard's home: sent on this node, or received from another
 * node.
 */
sealed interface Buffered {

    /** Bytes this item counts against {@code buffer-bytes}: those of a frame from another node, none otherwise. */
    int bytes();

    /**
     * A message sent on this node.
     *
     * @param entityId the entity
     * @param message the message as routed (possibly wrapped with its headers and its message id)
     * @param ask the ask waiting for its outcome, or {@code null} for a tell
     */
    record Local(String entityId, Object message, @Nullable PendingAsk<?> ask) implements Buffered {

        /** Where the message's outcome goes: its ask, or nowhere for a tell. */
        ReplySink sink() {
            PendingAsk<?> a = ask;
            return a == null ? ReplySink.TELL : a;
        }

        @Override
        public int bytes() {
            return 0;
        }
    }

    /**
     * A message received from another node.
     *
     * @param frame a private copy of its frame (the transport's buffer is not ours to keep)
     * @param envelope its envelope, decoded, with its payload pointing into {@code frame}
     */
    record Forwarded(byte[] frame, EntityEnvelope envelope) implements Buffered {

        @Override
        public int bytes() {
            return frame.length;
        }
    }
}
