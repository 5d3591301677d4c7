package dev.sharding.internal.protocol;

import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to region: start hosting this shard. The reply is {@link ShardStarted}.
 *
 * @param typeName the entity type
 * @param shardId the shard
 */
public record HostShard(String typeName, int shardId) implements ProtocolMessage {

    /** The wire tag. */
    public static final int TAG = 7;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId);
    }

    static HostShard readFrom(WireReader in) {
        return new HostShard(in.string(), in.varInt());
    }
}
