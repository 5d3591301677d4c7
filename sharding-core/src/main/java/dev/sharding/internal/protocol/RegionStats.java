package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Node to the node that asked with {@link GetRegionStats}: per entity type, the shards hosted here and how many
 * entities each has alive.
 *
 * @param requestId the request's id
 * @param leaving whether the node is handing off its shards to leave
 * @param handoffs the handoffs in progress, as "type/shard", if the node hosts the active coordinator
 * @param types one entry per entity type the node runs
 * @param profile the node's application version and roles
 * @param rebalances the recent rebalances that moved shards, newest first, if the node hosts the active
 *     coordinator
 * @param refused the members of the view the coordinator refused for good, if the node hosts the active coordinator
 */
public record RegionStats(
        long requestId,
        boolean leaving,
        List<String> handoffs,
        List<TypeStats> types,
        MemberProfile profile,
        List<RebalanceReport> rebalances,
        List<RefusedMember> refused)
        implements NodeMessage {

    /**
     * The answer of a node whose coordinator refused no member.
     *
     * @param requestId the request's id
     * @param leaving whether the node is leaving
     * @param handoffs the handoffs in progress
     * @param types one entry per entity type
     * @param profile the node's application version and roles
     * @param rebalances the recent rebalances that moved shards
     */
    public RegionStats(
            long requestId,
            boolean leaving,
            List<String> handoffs,
            List<TypeStats> types,
            MemberProfile profile,
            List<RebalanceReport> rebalances) {
        this(requestId, leaving, handoffs, types, profile, rebalances, List.of());
    }

    /**
     * The answer of a node that hosts no active coordinator, or whose coordinator moved nothing yet.
     *
     * @param requestId the request's id
     * @param leaving whether the node is leaving
     * @param handoffs the handoffs in progress
     * @param types one entry per entity type
     * @param profile the node's application version and roles
     */
    public RegionStats(
            long requestId, boolean leaving, List<String> handoffs, List<TypeStats> types, MemberProfile profile) {
        this(requestId, leaving, handoffs, types, profile, List.of());
    }

    /**
     * The answer of a member that says nothing of itself ({@link MemberProfile#NONE}).
     *
     * @param requestId the request's id
     * @param leaving whether the node is leaving
     * @param handoffs the handoffs in progress
     * @param types one entry per entity type
     */
    public RegionStats(long requestId, boolean leaving, List<String> handoffs, List<TypeStats> types) {
        this(requestId, leaving, handoffs, types, MemberProfile.NONE);
    }

    /** The wire tag. */
    public static final int TAG = 13;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.MEMBER;
    }

    @Override
    public boolean answeredWhileStopping() {
        return false;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onRegionStats(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(requestId).bool(leaving).varInt(handoffs.size());
        handoffs.forEach(out::string);
        out.varInt(types.size());
        for (TypeStats t : types) {
            out.string(t.typeName())
                    .bool(t.proxyOnly())
                    .int64(t.passivations())
                    .varInt(t.entitiesPerShard().size());
            t.entitiesPerShard().forEach((shard, count) -> out.varInt(shard).varInt(count));
        }
        profile.writeTo(out);
        RebalanceReport.writeList(out, rebalances);
        RefusedMember.writeList(out, refused);
    }

    static RegionStats readFrom(WireReader in) {
        long id = in.int64();
        boolean leaving = in.bool();
        int h = in.varInt();
        if (h > in.remaining()) {
            throw new MalformedFrameException("Bad handoff count " + h);
        }
        List<String> handoffs = new ArrayList<>(h);
        for (int i = 0; i < h; i++) {
            handoffs.add(in.string());
        }
        int n = in.varInt();
        if (n > in.remaining()) {
            throw new MalformedFrameException("Bad type count " + n);
        }
        List<TypeStats> types = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String type = in.string();
            boolean proxy = in.bool();
            long passivations = in.int64();
            int shards = in.varInt();
            if (shards > in.remaining()) {
                throw new MalformedFrameException("Bad shard count " + shards);
            }
            Map<Integer, Integer> map = new TreeMap<>();
            for (int j = 0; j < shards; j++) {
                map.put(in.varInt(), in.varInt());
            }
            types.add(new TypeStats(type, proxy, passivations, map));
        }
        MemberProfile profile = MemberProfile.readFrom(in);
        List<RebalanceReport> rebalances = RebalanceReport.readList(in);
        return new RegionStats(
                id,
                leaving,
                List.copyOf(handoffs),
                List.copyOf(types),
                profile,
                rebalances,
                RefusedMember.readList(in));
    }

    /**
     * One region's figures.
     *
     * @param typeName the entity type
     * @param proxyOnly whether the region hosts nothing
     * @param passivations entities passivated there since the node started
     * @param entitiesPerShard live entities per hosted shard
     */
    public record TypeStats(
            String typeName, boolean proxyOnly, long passivations, Map<Integer, Integer> entitiesPerShard) {}
}
