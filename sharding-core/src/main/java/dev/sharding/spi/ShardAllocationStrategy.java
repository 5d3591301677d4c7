package dev.sharding.spi;

import dev.sharding.Member;
import java.util.Map;
import java.util.Set;

/**
 * Decides which region hosts a shard that has no home yet, and which shards to move to even out the load. Runs only
 * inside the active coordinator, on its own thread; it must not block.
 *
 * <p>The {@code allocations} it is handed are read-only views of the coordinator's table, not copies, so that a
 * decision costs the same at 10,000 shards as at 100: they are valid during the call only (copy what is to be kept),
 * and changing them throws {@link UnsupportedOperationException}. A strategy that throws places nothing: the shard
 * waits and is tried again at the next retry interval, and the failure is logged.
 */
public interface ShardAllocationStrategy {

    /**
     * Chooses the home of a shard.
     *
     * @param requester the member whose region asked first for the shard's home
     * @param shardId the shard
     * @param allocations every region that may take shards of the type, with the shards it hosts now (never empty;
     *     regions without shards are present with an empty set)
     * @return one of the keys of {@code allocations}
     */
    Member allocate(Member requester, int shardId, Map<Member, Set<Integer>> allocations);

    /**
     * Chooses shards to move in one rebalance round. Each is handed off and then allocated again with
     * {@link #allocate}. Called every rebalance interval while the membership is stable and nothing is moving.
     *
     * @param allocations every region that may take shards of the type, with the shards it hosts now
     * @param inProgress shards of the type being moved now
     * @return the shards to move; empty when the load is even enough
     */
    default Set<Integer> rebalance(Map<Member, Set<Integer>> allocations, Set<Integer> inProgress) {
        return Set.of();
    }
}
