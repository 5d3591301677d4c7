package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to region: stop this incarnation of the shard now, without handing it off, and forget its home. Sent
 * when two regions report the same shard (after a merge): the copy with the older epoch is stale.
 *
 * @param typeName the entity type
 * @param shardId the shard
 * @param epoch the epoch of the incarnation to stop; a region hosting another epoch ignores it
 */
public record StopShard(String typeName, int shardId, long epoch) implements RegionMessage {

    /** The wire tag. */
    public static final int TAG = 27;

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
        handler.onStopShard(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId).int64(epoch);
    }

    static StopShard readFrom(WireReader in) {
        return new StopShard(in.string(), in.varInt(), in.int64());
    }
}
