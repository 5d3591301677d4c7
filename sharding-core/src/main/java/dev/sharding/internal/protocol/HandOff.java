package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Coordinator to the shard's owner: once every listed region's {@link BeginHandOffAck} has arrived (or the region
 * left), stop the shard's entities and answer {@link ShardStopped}.
 *
 * @param typeName the entity type
 * @param shardId the shard
 * @param regions the members whose acknowledgement the owner waits for
 */
public record HandOff(String typeName, int shardId, List<Member> regions) implements RegionMessage {

    /** The wire tag. */
    public static final int TAG = 16;

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
        handler.onHandOff(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.string(typeName).varInt(shardId).varInt(regions.size());
        regions.forEach(out::member);
    }

    static HandOff readFrom(WireReader in) {
        String type = in.string();
        int shard = in.varInt();
        int n = in.varInt();
        if (n > in.remaining()) {
            throw new MalformedFrameException("Bad region count " + n);
        }
        List<Member> regions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            regions.add(in.member());
        }
        return new HandOff(type, shard, List.copyOf(regions));
    }
}
