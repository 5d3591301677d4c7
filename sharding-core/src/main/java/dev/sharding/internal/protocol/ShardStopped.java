package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Owner to coordinator, answering {@link HandOff}: the shard's entities have stopped and it is no longer hosted here.
 *
 * @param typeName the entity type
 * @param shardId the shard
 */
public record ShardStopped(String typeName, int shardId) implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 17;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId);
    }

    static ShardStopped readFrom(WireReader in) {
        return new ShardStopped(in.string(), in.varInt());
    }
}
