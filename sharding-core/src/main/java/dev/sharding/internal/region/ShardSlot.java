package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.protocol.EntityEnvelope;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * What a region knows of one shard: its home, the local shard when the home is this node, the messages that wait
 * while the home is unknown, and, at the owner, the shard's handoff.
 *
 * <p>{@code home} is read without a lock on the hot path. It is only set by the control thread, holding this slot's
 * monitor, <em>after</em> the buffered messages were sent on, so a caller that sees a home can never overtake a
 * message it buffered earlier. The buffer and {@code requested} are guarded by the monitor.
 *
 * <p>{@code senders} counts the threads between reading {@code home} and finishing the send (callers and transport
 * threads). When a handoff begins, the control thread clears {@code home} and waits for the count to reach zero
 * before acknowledging, so every message sent on the old home has left before the acknowledgement does.
 *
 * <p>The remaining fields belong to the control thread.
 */
final class ShardSlot {

    final int shardId;

    volatile @Nullable Member home;

    volatile @Nullable Shard local;

    final AtomicInteger senders = new AtomicInteger();

    final ArrayDeque<Buffered> buffer = new ArrayDeque<>();

    boolean requested;

    /** At the owner: the handoff of the shard hosted here, from its first acknowledgement or {@code HandOff}. */
    @Nullable
    ShardHandOff handOff;

    ShardSlot(int shardId) {
        this.shardId = shardId;
    }

    /**
     * A message waiting for the shard's home: either sent on this node ({@code message}, with {@code ask} or a tell)
     * or received from another node ({@code frame}, a private copy, with its decoded {@code envelope}).
     */
    record Buffered(
            String entityId,
            @Nullable Object message,
            @Nullable PendingAsk<?> ask,
            byte @Nullable [] frame,
            @Nullable EntityEnvelope envelope) {}
}
