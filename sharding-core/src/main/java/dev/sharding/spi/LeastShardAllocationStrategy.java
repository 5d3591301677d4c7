package dev.sharding.spi;

import dev.sharding.Member;
import dev.sharding.RebalanceSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Gives a new shard to the region that hosts the fewest shards, and rebalances from the most to the least loaded
 * regions in bounded rounds.
 *
 * <p>A round moves at most {@code max(1, min(relativeLimit x total shards, absoluteLimit))} shards. With
 * {@code optimal = ceil(total / regions)}, it first takes the shards above {@code optimal} from the regions that
 * have more, alternating between them; if there are none, it takes one shard from each region at {@code optimal}
 * as long as some region has fewer than {@code optimal - 1}. So regions end at most one shard apart, and a
 * difference of one never moves anything (no oscillation). Nothing is chosen while shards are moving.
 *
 * <p>All choices are deterministic: regions are ordered by load, then by member id; shards by id.
 */
public final class LeastShardAllocationStrategy implements ShardAllocationStrategy {

    private final int absoluteLimit;

    private final double relativeLimit;

    /**
     * The strategy with the default limits (20 shards, 10%).
     */
    public LeastShardAllocationStrategy() {
        this(RebalanceSettings.DEFAULT_ABSOLUTE_LIMIT, RebalanceSettings.DEFAULT_RELATIVE_LIMIT);
    }

    /**
     * The strategy with limits of one's own.
     *
     * @param absoluteLimit the most shards moved per round
     * @param relativeLimit the most shards moved per round, as a fraction of all shards
     */
    public LeastShardAllocationStrategy(int absoluteLimit, double relativeLimit) {
        if (absoluteLimit < 1 || relativeLimit <= 0 || relativeLimit > 1) {
            throw new IllegalArgumentException("Rebalance limits must be positive (absolute " + absoluteLimit
                    + ", relative " + relativeLimit + ")");
        }
        this.absoluteLimit = absoluteLimit;
        this.relativeLimit = relativeLimit;
    }

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

    @Override
    public Set<Integer> rebalance(Map<Member, Set<Integer>> allocations, Set<Integer> inProgress) {
        if (!inProgress.isEmpty() || allocations.size() < 2) {
            return Set.of();
        }
        int total = allocations.values().stream().mapToInt(Set::size).sum();
        if (total == 0) {
            return Set.of();
        }
        int regions = allocations.size();
        int optimal = total / regions + (total % regions == 0 ? 0 : 1);
        int limit = Math.max(1, Math.min((int) (relativeLimit * total), absoluteLimit));
        List<Map.Entry<Member, Set<Integer>>> byLoad = new ArrayList<>(allocations.entrySet());
        byLoad.sort(Comparator.<Map.Entry<Member, Set<Integer>>>comparingInt(
                        e -> -e.getValue().size())
                .thenComparing(Map.Entry::getKey));

        // phase 1: everything above optimal, alternating between the overloaded regions
        List<List<Integer>> surplus = new ArrayList<>();
        for (Map.Entry<Member, Set<Integer>> e : byLoad) {
            int extra = e.getValue().size() - optimal;
            if (extra > 0) {
                surplus.add(new ArrayList<>(new TreeSet<>(e.getValue()).descendingSet()).subList(0, extra));
            }
        }
        Set<Integer> chosen = new LinkedHashSet<>();
        for (int i = 0; chosen.size() < limit; i++) {
            boolean any = false;
            for (List<Integer> s : surplus) {
                if (i < s.size() && chosen.size() < limit) {
                    chosen.add(s.get(i));
                    any = true;
                }
            }
            if (!any) {
                break;
            }
        }
        if (!chosen.isEmpty()) {
            return chosen;
        }

        // phase 2: regions two or more below optimal take one shard from each region at optimal
        int below = 0;
        for (Map.Entry<Member, Set<Integer>> e : byLoad) {
            below += Math.max(0, optimal - 1 - e.getValue().size());
        }
        int take = Math.min(below, limit);
        for (Map.Entry<Member, Set<Integer>> e : byLoad) {
            if (chosen.size() >= take) {
                break;
            }
            if (e.getValue().size() >= optimal) {
                chosen.add(new TreeSet<>(e.getValue()).last());
            }
        }
        return chosen;
    }
}
