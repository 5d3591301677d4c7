package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.List;

/**
 * Node to coordinator, answering {@link GetShardStates}: my regions and the shards they host.
 *
 * @param regions one entry per entity type the node runs
 * @param profile the node's application version and roles
 */
public record ShardStates(List<RegionInfo> regions, MemberProfile profile) implements CoordinatorMessage {

    /**
     * The answer of a member that says nothing of itself ({@link MemberProfile#NONE}).
     *
     * @param regions one entry per entity type the node runs
     */
    public ShardStates(List<RegionInfo> regions) {
        this(regions, MemberProfile.NONE);
    }

    /** The wire tag. */
    public static final int TAG = 4;

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
        handler.onShardStates(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        RegionInfos.write(out, regions);
        profile.writeTo(out);
    }

    static ShardStates readFrom(WireReader in) {
        return new ShardStates(RegionInfos.read(in), MemberProfile.readFrom(in));
    }
}
