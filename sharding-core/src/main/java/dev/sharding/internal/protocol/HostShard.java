package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.List;

/**
 * Coordinator to region: start hosting this shard under a new epoch. The reply is {@link ShardStarted}.
 *
 * @param typeName the entity type
 * @param shardId the shard
 * @param epoch the allocation's epoch, from the store: every state write of the shard's entities carries it
 * @param transferEpoch the epoch of the previous owner's incarnation that stopped with {@code transfer}; the new
 *     owner takes the transfer only if no other allocation came between ({@code transferEpoch + 1 == epoch}),
 *     and otherwise reads the state from the store
 * @param transfer the stored state of the entities the previous owner stopped, when the shard was handed off
 */
public record HostShard(String typeName, int shardId, long epoch, long transferEpoch, List<EntityTransfer> transfer)
        implements RegionMessage {

    /** The wire tag. */
    public static final int TAG = 7;

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
        handler.onHostShard(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId).int64(epoch).int64(transferEpoch);
        EntityTransfer.writeList(out, transfer);
    }

    static HostShard readFrom(WireReader in, int maxState) {
        return new HostShard(in.string(), in.varInt(), in.int64(), in.int64(), EntityTransfer.readList(in, maxState));
    }
}
