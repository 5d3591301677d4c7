package dev.sharding;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of the whole cluster as seen from one node, gathered from every member's regions.
 *
 * @param self the node that gathered it
 * @param coordinator the member whose coordinator is active
 * @param members every member of the current view, oldest first
 * @param regions per entity type, one entry per member
 * @param leaving members handing off their shards to leave
 * @param handoffs shards being moved now, as "type/shard", as the coordinator reported them
 * @param memberInfo the roles and application version of each member that answered
 * @param rebalances the recent rebalances that moved shards, newest first, as the coordinator reported them
 * @param refused members of the view the coordinator refused for good, with why (another number of shards, another
 *     store, a store another cluster uses), as the coordinator reported them: such a member hosts nothing and fails every call made through it
 */
public record ClusterState(
        Member self,
        @Nullable Member coordinator,
        List<Member> members,
        Map<String, List<RegionState>> regions,
        Set<Member> leaving,
        List<String> handoffs,
        Map<Member, MemberInfo> memberInfo,
        List<Rebalance> rebalances,
        Map<Member, String> refused) {

    /**
     * A rebalance that moved shards: a round of the allocation strategy (one decision of what to move, bounded by the
     * rebalance limits) and the rounds that followed it as soon as the moves of the one before were done, until the
     * strategy chose nothing more. The coordinator's log numbers its rounds ({@code Rebalance on n1: round 2 moving 1
     * more shards}).
     *
     * @param startedAt when its first round started (on the clock of the node that gathered the snapshot)
     * @param rounds how many rounds it took
     * @param moved how many shards its rounds started moving
     * @param from per node name, how many of the moved shards left it
     * @param to per node name, how many of the moved shards were placed on it so far; the others are still moving
     */
    public record Rebalance(
            Instant startedAt, int rounds, int moved, Map<String, Integer> from, Map<String, Integer> to) {}

    /**
     * What a member says of itself.
     *
     * @param roles its roles ({@code sharding.roles})
     * @param appVersion its application version ({@code sharding.app-version}), empty if unversioned
     */
    public record MemberInfo(Set<String> roles, String appVersion) {}

    /**
     * One member's region of one type.
     *
     * @param member the member
     * @param answered whether the member answered in time; if not, the other fields are empty
     * @param proxyOnly whether the region only routes
     * @param passivations entities passivated in this region since its node started
     * @param entitiesPerShard live entities per hosted shard
     */
    public record RegionState(
            Member member,
            boolean answered,
            boolean proxyOnly,
            long passivations,
            Map<Integer, Integer> entitiesPerShard) {}
}
