package dev.sharding.spi;

import dev.sharding.Member;
import java.util.Map;
import java.util.Set;

/**
 * Gives a new shard to the region that hosts the fewest shards; ties go to the member with the smallest id, so that
 * every coordinator makes the same choice from the same table.
 */
public final class LeastShardAllocationStrategy implements ShardAllocationStrategy {

    @Override
    public Member allocate(Member requester, int shardId, Map<Member, Set<Integer>> allocations) {
        Member best = null;
        int fewest = Integer.MAX_VALUE;
        for (Map.Entry<Member, Set<Integer>> e : allocations.entrySet()) {
            int n = e.getValue().size();
            if (n < fewest || (n == fewest && best != null && e.getKey().compareTo(best) < 0)) {
                best = e.getKey();
                fewest = n;
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("No region to allocate shard " + shardId + " to");
        }
        return best;
    }
}
