package dev.sharding.internal;

import dev.sharding.Member;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * What a region knows of one shard: its home, the local shard when the home is this node, and the messages that wait
 * while the home is unknown.
 *
 * <p>{@code home} is read without a lock on the hot path. It is only set by the control thread, holding this slot's
 * monitor, <em>after</em> the buffered messages were sent on, so a caller that sees a home can never overtake a
 * message it buffered earlier. The buffer and {@code requested} are guarded by the monitor.
 */
final class ShardSlot {

    final int shardId;

    volatile @Nullable Member home;

    volatile @Nullable Shard local;

    final ArrayDeque<Buffered> buffer = new ArrayDeque<>();

    boolean requested;

    ShardSlot(int shardId) {
        this.shardId = shardId;
    }

    /**
     * A message waiting for the shard's home: either sent on this node ({@code message}, with {@code ask} or a tell)
     * or received from another node ({@code frame}, a private copy, with its decoded {@code envelope}).
     */
    record Buffered(String entityId, @Nullable Object message, @Nullable PendingAsk<?> ask,
            byte @Nullable [] frame, dev.sharding.internal.protocol.@Nullable EntityEnvelope envelope) {
    }
}
