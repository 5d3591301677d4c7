package dev.sharding.autoconfigure.actuate;

import dev.sharding.ClusterState;
import dev.sharding.Member;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.ClusterDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.MemberDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.RebalanceDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint.RegionDescriptor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The cluster state a node gathered, as {@link ShardingEndpoint} describes it. */
final class ClusterDescriptions {

    private ClusterDescriptions() {}

    /**
     * Describes the cluster of a running node.
     *
     * @param state the state gathered from the members
     * @param shardCounts per entity type name the node runs, its number of shards
     * @param daemons the daemon processes, described
     * @return the description
     */
    static ClusterDescriptor describe(
            ClusterState state, Map<String, Integer> shardCounts, List<DaemonProcessDescriptor> daemons) {
        Map<String, List<RegionDescriptor>> types = new TreeMap<>();
        state.regions()
                .forEach((type, regions) -> types.put(
                        type,
                        regions.stream().map(ClusterDescriptions::describe).toList()));
        Member coordinator = state.coordinator();
        return new ClusterDescriptor(
                true,
                describe(state.self(), state),
                coordinator == null ? null : describe(coordinator, state),
                state.members().stream().map(m -> describe(m, state)).toList(),
                types,
                state.handoffs(),
                state.rebalances().stream()
                        .map(r -> new RebalanceDescriptor(r.startedAt(), r.rounds(), r.moved(), r.from(), r.to()))
                        .toList(),
                shardCounts,
                daemons);
    }

    private static MemberDescriptor describe(Member member, ClusterState state) {
        ClusterState.MemberInfo info = state.memberInfo().get(member);
        String refused = state.refused().get(member);
        String status = refused != null
                ? ShardingEndpoint.REFUSED
                : state.leaving().contains(member) ? ShardingEndpoint.LEAVING : ShardingEndpoint.UP;
        return new MemberDescriptor(
                member.name(),
                member.id(),
                status,
                info == null ? List.of() : info.roles().stream().sorted().toList(),
                info == null ? "" : info.appVersion(),
                refused == null ? "" : refused);
    }

    private static RegionDescriptor describe(ClusterState.RegionState region) {
        Map<Integer, Integer> shards = new LinkedHashMap<>(new TreeMap<>(region.entitiesPerShard()));
        int entities = shards.values().stream().mapToInt(Integer::intValue).sum();
        return new RegionDescriptor(
                region.member().name(),
                region.answered(),
                region.proxyOnly(),
                shards.size(),
                entities,
                region.passivations(),
                shards);
    }
}
