package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import org.jspecify.annotations.Nullable;

/**
 * Any node to the coordinator, on an operator's behalf: start a rebalance round now ({@code typeName} null), or hand
 * off one shard, optionally to a named node. The answer is {@link AdminReply}.
 *
 * @param requestId matches the reply
 * @param typeName the type of the shard to hand off, or {@code null} for a rebalance
 * @param shardId the shard to hand off
 * @param targetNode the name of the node to move it to, or {@code null} for the allocation strategy's choice
 */
public record AdminRequest(
        long requestId,
        @Nullable String typeName,
        int shardId,
        @Nullable String targetNode) implements CoordinatorMessage {

    /** The wire tag. */
    public static final int TAG = 20;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.MEMBER;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onAdminRequest(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(requestId).nullableString(typeName).varInt(shardId).nullableString(targetNode);
    }

    static AdminRequest readFrom(WireReader in) {
        return new AdminRequest(in.int64(), in.nullableString(), in.varInt(), in.nullableString());
    }
}
