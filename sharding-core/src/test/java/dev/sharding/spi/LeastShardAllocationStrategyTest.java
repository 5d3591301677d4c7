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
        Map<Member, Set<Integer>> table =
                new HashMap<>(Map.of(A, new HashSet<>(), B, new HashSet<>(), C, new HashSet<>()));
        for (int shard = 0; shard < 100; shard++) {
            Member chosen = strategy.allocate(A, shard, table);
            table.get(chosen).add(shard);
        }
        assertThat(table.values()).allSatisfy(s -> assertThat(s.size()).isBetween(33, 34));
    }

    private static Set<Integer> range(int from, int to) {
        Set<Integer> s = new HashSet<>();
        for (int i = from; i < to; i++) {
            s.add(i);
        }
        return s;
    }

    /** Applies rebalance rounds (moving chosen shards to the least loaded region) until nothing moves. */
    private static int roundsToBalance(
            LeastShardAllocationStrategy strategy, Map<Member, Set<Integer>> table, Member newcomer, int wanted) {
        int rounds = 0;
        while (true) {
            Set<Integer> moves = strategy.rebalance(table, Set.of());
            if (moves.isEmpty()) {
                return rounds;
            }
            rounds++;
            for (int shard : moves) {
                table.values().forEach(s -> s.remove(shard));
            }
            for (int shard : moves) {
                table.get(strategy.allocate(newcomer, shard, table)).add(shard);
            }
            if (newcomer != null && table.get(newcomer).size() >= wanted && wanted > 0) {
                return rounds;
            }
            assertThat(rounds).as("rounds").isLessThan(50);
        }
    }

    @Test
    void aNewRegionGetsItsFairShareInFewRoundsWithinTheLimits() {
        Map<Member, Set<Integer>> table = new HashMap<>(Map.of(A, range(0, 50), B, range(50, 100), C, new HashSet<>()));
        Set<Integer> first = strategy.rebalance(table, Set.of());
        assertThat(first).hasSize(10); // min(10% of 100, 20)
        assertThat(first)
                .as("taken from both loaded regions")
                .anyMatch(s -> s < 50)
                .anyMatch(s -> s >= 50);
        assertThat(roundsToBalance(strategy, table, C, 30)).isEqualTo(3);
        assertThat(table.get(C)).hasSizeGreaterThanOrEqualTo(30);
        roundsToBalance(strategy, table, null, 0);
        assertThat(table.values()).allSatisfy(s -> assertThat(s.size()).isBetween(33, 34));
    }

    @Test
    void honoursTheAbsoluteAndRelativeLimits() {
        Map<Member, Set<Integer>> table = Map.of(A, range(0, 1000), B, Set.of());
        assertThat(strategy.rebalance(table, Set.of())).hasSize(20);
        assertThat(new LeastShardAllocationStrategy(100, 0.05).rebalance(table, Set.of()))
                .hasSize(50);
        assertThat(new LeastShardAllocationStrategy(5, 0.01).rebalance(Map.of(A, range(0, 10), B, Set.of()), Set.of()))
                .as("at least one")
                .hasSize(1);
    }

    @Test
    void aDifferenceOfOneIsBalancedAndNothingMovesWhileShardsMove() {
        assertThat(strategy.rebalance(Map.of(A, range(0, 34), B, range(34, 67), C, range(67, 100)), Set.of()))
                .isEmpty();
        assertThat(strategy.rebalance(Map.of(A, range(0, 3), B, range(3, 5)), Set.of()))
                .isEmpty();
        assertThat(strategy.rebalance(Map.of(A, range(0, 50), B, Set.of()), Set.of(7)))
                .isEmpty();
        assertThat(strategy.rebalance(Map.of(A, range(0, 50)), Set.of())).isEmpty();
        assertThat(strategy.rebalance(Map.of(A, Set.of(), B, Set.of()), Set.of()))
                .isEmpty();
    }

    @Test
    void secondPhaseLiftsARegionTwoBelowOptimal() {
        // 34, 34, 32: nobody above optimal 34, but C is two below: one shard moves
        Set<Integer> moves = strategy.rebalance(Map.of(A, range(0, 34), B, range(34, 68), C, range(68, 100)), Set.of());
        assertThat(moves).hasSize(1);
    }

    @Test
    void isDeterministic() {
        Map<Member, Set<Integer>> table = Map.of(A, range(0, 40), B, range(40, 80), C, range(80, 85));
        assertThat(strategy.rebalance(table, Set.of())).isEqualTo(strategy.rebalance(new HashMap<>(table), Set.of()));
    }

    @Test
    void refusesAnEmptyTable() {
        assertThatThrownBy(() -> strategy.allocate(A, 1, Map.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
