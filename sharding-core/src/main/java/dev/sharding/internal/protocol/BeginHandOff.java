package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to every region of the type: the shard is moving; from now on buffer messages for it and answer the
 * owner with {@link BeginHandOffAck}.
 *
 * @param typeName the entity type
 * @param shardId the shard
 * @param owner the member hosting the shard now
 */
public record BeginHandOff(String typeName, int shardId, Member owner) implements RegionMessage {

    /** The wire tag. */
    public static final int TAG = 14;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.COORDINATOR;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onBeginHandOff(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId).member(owner);
    }

    static BeginHandOff readFrom(WireReader in) {
        return new BeginHandOff(in.string(), in.varInt(), in.member());
    }
}
