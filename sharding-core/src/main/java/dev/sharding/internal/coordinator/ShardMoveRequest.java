package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * An operator's request to hand off one shard, judged against the coordinator's table. The rules, in the order they
 * are checked; the first that applies refuses the request and says why:
 *
 * <ol>
 * <li>the entity type is unknown;</li>
 * <li>the shard id is out of range;</li>
 * <li>a target node is named and is not in the view;</li>
 * <li>a handoff of the shard is already in progress;</li>
 * <li>the shard is not allocated (or its allocation is under way: the request may be made again in a moment);</li>
 * <li>the target hosts no region of the type, or is leaving;</li>
 * <li>the shard is already on the target.</li>
 * </ol>
 *
 * <p>Otherwise the shard moves from its owner, to the target when one is named, else wherever the allocation strategy
 * puts it. Pure: no network, no clock.
 *
 * @param refusal why the request is refused, or {@code null}
 * @param owner the shard's owner, when the request is taken
 * @param target the member to move it to, or {@code null} for the strategy's choice
 */
record ShardMoveRequest(
        @Nullable String refusal,
        @Nullable Member owner,
        @Nullable Member target) {

    /**
     * Judges a request.
     *
     * @param state the coordinator's table
     * @param view the members of the current view
     * @param leaving the members leaving gracefully
     * @param handingOff whether a handoff of a shard (by id) of this type is in progress
     * @param allocating whether a shard (by id) of this type is being allocated: its region may serve already, but it
     *     has not told the coordinator yet
     * @param typeName the entity type
     * @param shardId the shard
     * @param targetNode the name of the node to move it to, or {@code null}
     * @return the decision
     */
    static ShardMoveRequest judge(
            ShardTable state,
            List<Member> view,
            Set<Member> leaving,
            IntPredicate handingOff,
            IntPredicate allocating,
            String typeName,
            int shardId,
            @Nullable String targetNode) {
        ShardTable.TypeTable t = state.type(typeName);
        Member target = targetNode == null
                ? null
                : view.stream()
                        .filter(m -> m.name().equals(targetNode))
                        .findFirst()
                        .orElse(null);
        if (t == null) {
            return refused("Unknown entity type " + typeName);
        }
        if (shardId < 0 || shardId >= t.numberOfShards()) {
            return refused(
                    "Unknown shard " + shardId + " of " + typeName + " (it has " + t.numberOfShards() + " shards)");
        }
        if (targetNode != null && target == null) {
            return refused("Unknown node " + targetNode);
        }
        if (handingOff.test(shardId)) {
            return refused("A handoff of shard " + shardId + " of " + typeName + " is already in progress");
        }
        Member owner = t.homes().get(shardId);
        if (owner == null) {
            return refused(
                    allocating.test(shardId)
                            ? "Shard " + shardId + " of " + typeName
                                    + " is being allocated (its region has not confirmed it yet); try again in a moment"
                            : "Shard " + shardId + " of " + typeName + " is not allocated");
        }
        if (target != null && (!t.regions().containsKey(target) || leaving.contains(target))) {
            return refused("Node " + targetNode + " cannot host " + typeName);
        }
        if (target != null && target.equals(owner)) {
            return refused("Shard " + shardId + " of " + typeName + " is already on " + targetNode);
        }
        return new ShardMoveRequest(null, owner, target);
    }

    private static ShardMoveRequest refused(String why) {
        return new ShardMoveRequest(why, null, null);
    }

    /** What the operator is told when the request is taken. */
    String accepted(String typeName, int shardId) {
        return "Handing off shard " + shardId + " of " + typeName + " from " + owner
                + (target == null ? "" : " to " + target);
    }
}
