package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.CoordinatorTables.Allocation;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The allocations under way (waiting for their epoch or for {@code ShardStarted}), by shard, and the same shards by
 * type and chosen member: the allocation strategy counts a member's shards under way with those it hosts, so that a
 * burst of requests is spread too, and finds them here without walking every allocation. Control thread only.
 */
final class AllocationsUnderWay {

    private final Map<ShardKey, Allocation> byShard = new LinkedHashMap<>();

    private final Map<String, Map<Member, Set<Integer>>> byMember = new HashMap<>();

    @Nullable
    Allocation get(ShardKey key) {
        return byShard.get(key);
    }

    boolean containsKey(ShardKey key) {
        return byShard.containsKey(key);
    }

    boolean isEmpty() {
        return byShard.isEmpty();
    }

    void put(ShardKey key, Allocation allocation) {
        remove(key);
        byShard.put(key, allocation);
        byMember.computeIfAbsent(key.typeName(), k -> new HashMap<>())
                .computeIfAbsent(allocation.member, m -> new TreeSet<>())
                .add(key.shardId());
    }

    @Nullable
    Allocation remove(ShardKey key) {
        Allocation a = byShard.remove(key);
        if (a != null) {
            Map<Member, Set<Integer>> members = byMember.get(key.typeName());
            if (members != null) {
                Set<Integer> shards = members.get(a.member);
                if (shards != null && shards.remove(key.shardId()) && shards.isEmpty()) {
                    members.remove(a.member);
                }
            }
        }
        return a;
    }

    /** Every allocation under way, in the order they began. The action must not add or remove any. */
    void forEach(BiConsumer<ShardKey, Allocation> action) {
        byShard.forEach(action);
    }

    /** The shards of a type being allocated to a member: a read-only view, empty if none. */
    Set<Integer> shardsTo(String typeName, Member member) {
        Map<Member, Set<Integer>> members = byMember.get(typeName);
        Set<Integer> shards = members == null ? null : members.get(member);
        return shards == null ? Set.of() : Collections.unmodifiableSet(shards);
    }

    void clear() {
        byShard.clear();
        byMember.clear();
    }
}
