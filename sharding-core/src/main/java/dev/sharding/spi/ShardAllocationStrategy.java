package dev.sharding.spi;

import dev.sharding.Member;
import java.util.Map;
import java.util.Set;

/**
 * Decides which region hosts a shard that has no home yet. Runs only inside the active coordinator, on its own
 * thread; it must not block.
 */
@FunctionalInterface
public interface ShardAllocationStrategy {

    /**
     * Chooses the home of a shard.
     *
     * @param requester the member whose region asked first for the shard's home
     * @param shardId the shard
     * @param allocations every region that may host shards of the type, with the shards it hosts now (never empty;
     *     regions without shards are present with an empty set)
     * @return one of the keys of {@code allocations}
     */
    Member allocate(Member requester, int shardId, Map<Member, Set<Integer>> allocations);
}
