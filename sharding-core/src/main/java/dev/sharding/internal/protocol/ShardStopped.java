package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.List;

/**
 * Owner to coordinator, answering {@link HandOff}: the shard's entities have stopped and it is no longer hosted here;
 * here is their stored state, for the next owner.
 *
 * @param typeName the entity type
 * @param shardId the shard
 * @param epoch the epoch of the incarnation that stopped: the state in {@code transfer} is current as of it
 * @param transfer the stored state of the entities that were alive
 */
public record ShardStopped(String typeName, int shardId, long epoch, List<EntityTransfer> transfer)
        implements CoordinatorMessage {

    /** The wire tag. */
    public static final int TAG = 17;

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
        handler.onShardStopped(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId).int64(epoch);
        EntityTransfer.writeList(out, transfer);
    }

    static ShardStopped readFrom(WireReader in, int maxState) {
        return new ShardStopped(in.string(), in.varInt(), in.int64(), EntityTransfer.readList(in, maxState));
    }
}
