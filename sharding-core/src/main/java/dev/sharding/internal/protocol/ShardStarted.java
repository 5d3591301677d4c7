package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Region to coordinator, answering {@link HostShard}: the shard is hosted here and takes messages.
 *
 * @param typeName the entity type
 * @param shardId the shard
 */
public record ShardStarted(String typeName, int shardId) implements CoordinatorMessage {

    /** The wire tag. */
    public static final int TAG = 8;

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
        handler.onShardStarted(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId);
    }

    static ShardStarted readFrom(WireReader in) {
        return new ShardStarted(in.string(), in.varInt());
    }
}
