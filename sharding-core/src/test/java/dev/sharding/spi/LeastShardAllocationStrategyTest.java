package dev.sharding.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.Member;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LeastShardAllocationStrategyTest {

    private static final Member A = new Member(0, 1, "a");

    private static final Member B = new Member(0, 2, "b");

    private static final Member C = new Member(0, 3, "c");

    private final LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();

    @Test
    void givesANewShardToTheRegionWithTheFewestShards() {
        Map<Member, Set<Integer>> table = Map.of(A, Set.of(1, 2, 3), B, Set.of(4), C, Set.of(5, 6));
        assertThat(strategy.allocate(A, 9, table)).isEqualTo(B);
    }

    @Test
    void breaksTiesByMemberIdWhateverTheMapOrder() {
        Map<Member, Set<Integer>> forward = new LinkedHashMap<>();
        forward.put(C, Set.of());
        forward.put(B, Set.of());
        forward.put(A, Set.of(1));
        Map<Member, Set<Integer>> backward = new LinkedHashMap<>();
        backward.put(A, Set.of(1));
        backward.put(B, Set.of());
        backward.put(C, Set.of());
        assertThat(strategy.allocate(C, 2, forward)).isEqualTo(B);
        assertThat(strategy.allocate(C, 2, backward)).isEqualTo(B);
    }

    @Test
    void spreadsShardsEvenlyWhenAllocatingOneAfterAnother() {
        Map<Member, Set<Integer>> table = new HashMap<>(Map.of(A, new HashSet<>(), B, new HashSet<>(), C,
                new HashSet<>()));
        for (int shard = 0; shard < 100; shard++) {
            Member chosen = strategy.allocate(A, shard, table);
            table.get(chosen).add(shard);
        }
        assertThat(table.values()).allSatisfy(s -> assertThat(s.size()).isBetween(33, 34));
    }

    @Test
    void refusesAnEmptyTable() {
        assertThatThrownBy(() -> strategy.allocate(A, 1, Map.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
