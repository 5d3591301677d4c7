package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import java.util.AbstractSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The regions a shard of a type may be placed on, as the allocation strategy is handed them for an allocation or a
 * rebalance round, and the rolling update's rule on them: only the newest application version takes new shards.
 * Control thread only.
 */
final class Candidates {

    private Candidates() {}

    /**
     * The regions of a type that may take new shards (registered, in the view, not leaving), with their shards,
     * counting allocations still waiting for ShardStarted so that a burst of requests is spread too. The map is new
     * (its members may be removed); each member's shards are a read-only view of the table and of the allocations
     * under way, not a copy: the work does not grow with the shards, and the views are valid until the table changes.
     */
    static Map<Member, Set<Integer>> of(CoordinatorTables t, String typeName, ShardTable.TypeTable type) {
        Map<Member, Set<Integer>> map = new HashMap<>();
        type.regions().forEach((m, shards) -> {
            if (!t.leaving.contains(m)) {
                Set<Integer> allocating = t.inProgress.shardsTo(typeName, m);
                map.put(m, allocating.isEmpty() ? shards : new Union(shards, allocating));
            }
        });
        return map;
    }

    /**
     * A member's hosted shards and those being allocated to it, as one read-only set of constant size cost. The two
     * never share a shard: an allocation begins only for a shard without a home ({@link ShardAllocator#allocate}) and
     * ends as the shard gets one ({@link ShardAllocator#started}), and a member's report adopts only shards with
     * neither.
     */
    private static final class Union extends AbstractSet<Integer> {

        private final Set<Integer> hosted;

        private final Set<Integer> allocating;

        Union(Set<Integer> hosted, Set<Integer> allocating) {
            this.hosted = hosted;
            this.allocating = allocating;
        }

        @Override
        public boolean contains(Object o) {
            return hosted.contains(o) || allocating.contains(o);
        }

        @Override
        public int size() {
            return hosted.size() + allocating.size();
        }

        @Override
        public Iterator<Integer> iterator() {
            Iterator<Integer> first = hosted.iterator();
            Iterator<Integer> second = allocating.iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return first.hasNext() || second.hasNext();
                }

                @Override
                public Integer next() {
                    return first.hasNext() ? first.next() : second.next();
                }
            };
        }
    }

    /**
     * Keeps only the candidates that run the newest application version among them: during a rolling update new
     * shards (and shards moved off leaving members) go to new nodes only, and so move once.
     */
    static void keepNewestVersion(CoordinatorTables t, Map<Member, Set<Integer>> candidates) {
        String newest = null;
        for (Member m : candidates.keySet()) {
            String v = t.version(m);
            if (newest == null || AppVersion.compare(v, newest) > 0) {
                newest = v;
            }
        }
        if (newest != null) {
            String n = newest;
            candidates.keySet().removeIf(m -> AppVersion.compare(t.version(m), n) < 0);
        }
    }

    /** Whether the regions among these candidates run more than one application version. */
    static boolean mixedVersions(CoordinatorTables t, Map<Member, Set<Integer>> candidates) {
        String first = null;
        for (Member m : candidates.keySet()) {
            String v = t.version(m);
            if (first == null) {
                first = v;
            } else if (AppVersion.compare(v, first) != 0) {
                return true;
            }
        }
        return false;
    }
}
