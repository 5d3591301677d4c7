package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to region: the shard lives on this member (which has already started it).
 *
 * @param typeName the entity type
 * @param shardId the shard
 * @param home the member whose region hosts it
 */
public record ShardHome(String typeName, int shardId, Member home) implements RegionMessage {

    /** The wire tag. */
    public static final int TAG = 6;

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
        handler.onShardHome(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId).member(home);
    }

    static ShardHome readFrom(WireReader in) {
        return new ShardHome(in.string(), in.varInt(), in.member());
    }
}
