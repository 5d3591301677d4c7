package dev.sharding.boot.test;

import dev.sharding.ShardingNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The "at most one live owner" check: at one moment, the entities alive on more than one node that serves them. A
 * node that stopped serving (its side of a partition lost, its lease expired) keeps its entity objects for a while,
 * handling nothing; it is not an owner, so it is left out. Make one with {@link ShardingTestCluster#owners()}, or keep
 * checking during a test with {@link ShardingTestCluster#watchOwners()}.
 *
 * <pre>{@code
 * assertThat(cluster.owners().duplicates()).isEmpty();
 * }</pre>
 *
 * @param duplicates each entity with two owners or more, as {@code type/id}, with the names of its owners in start
 *     order; empty when every entity has at most one
 * @param entities how many live entities were seen, over all serving nodes
 */
public record OwnerCheck(Map<String, List<String>> duplicates, int entities) {

    /**
     * Checks the nodes as they are now.
     *
     * @param nodes the running nodes
     * @return what was found
     */
    static OwnerCheck of(List<ShardingTestNode> nodes) {
        Map<String, List<String>> owners = new TreeMap<>();
        int entities = 0;
        for (ShardingTestNode view : nodes) {
            ShardingNode node = view.node();
            if (!node.isRunning() || !node.isServing()) {
                continue;
            }
            for (String type : node.typeNames()) {
                for (List<String> ids : node.localRegion(type).entityIds().values()) {
                    for (String id : ids) {
                        entities++;
                        owners.computeIfAbsent(type + "/" + id, k -> new ArrayList<>())
                                .add(view.name());
                    }
                }
            }
        }
        owners.values().removeIf(list -> list.size() < 2);
        return new OwnerCheck(Collections.unmodifiableMap(owners), entities);
    }

    /**
     * Whether every live entity had at most one owner.
     *
     * @return true without duplicates
     */
    public boolean isExclusive() {
        return duplicates.isEmpty();
    }
}
