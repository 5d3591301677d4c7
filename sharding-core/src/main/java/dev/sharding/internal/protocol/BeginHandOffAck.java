package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Region to the shard's owner, answering {@link BeginHandOff}: I buffer the shard's messages now, and every message I sent you for it before this one has arrived (per-sender order).
 *
 * @param typeName the entity type
 * @param shardId the shard
 */
public record BeginHandOffAck(String typeName, int shardId) implements RegionMessage {

    /** The wire tag. */
    public static final int TAG = 15;

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
        handler.onBeginHandOffAck(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId);
    }

    static BeginHandOffAck readFrom(WireReader in) {
        return new BeginHandOffAck(in.string(), in.varInt());
    }
}
