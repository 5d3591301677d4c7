package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.List;

/**
 * Node to coordinator: here are my regions and the shards they host; repeated until a {@link RegisterAck} comes back
 * from the current coordinator.
 *
 * @param regions one entry per entity type the node runs
 * @param storeId the id of the node's store, empty for a store not shared between processes; the coordinator refuses
 *     a node whose store is not its own ({@link RegisterRefused})
 * @param profile the node's application version and roles
 */
public record Register(List<RegionInfo> regions, String storeId, MemberProfile profile) implements CoordinatorMessage {

    /**
     * A registration of a member that says nothing of itself ({@link MemberProfile#NONE}).
     *
     * @param regions one entry per entity type the node runs
     * @param storeId the id of the node's store
     */
    public Register(List<RegionInfo> regions, String storeId) {
        this(regions, storeId, MemberProfile.NONE);
    }

    /** The wire tag. */
    public static final int TAG = 1;

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
        handler.onRegister(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        RegionInfos.write(out, regions);
        out.string(storeId);
        profile.writeTo(out);
    }

    static Register readFrom(WireReader in) {
        return new Register(RegionInfos.read(in), in.string(), MemberProfile.readFrom(in));
    }
}
