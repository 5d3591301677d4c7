package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Region to coordinator: where does this shard live? The reply is {@link ShardHome}, once the shard has a home.
 *
 * @param typeName the entity type
 * @param shardId the shard
 */
public record GetShardHome(String typeName, int shardId) implements CoordinatorMessage {

    /** The wire tag. */
    public static final int TAG = 5;

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
        handler.onGetShardHome(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId);
    }

    static GetShardHome readFrom(WireReader in) {
        return new GetShardHome(in.string(), in.varInt());
    }
}
