package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AdminResult;
import dev.sharding.ClusterState;
import dev.sharding.EntityTypeSettings;
import dev.sharding.MemberSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where shards may go by what members say of themselves: roles (a type is hosted only where its role is), a minimum
 * number of members before the first shard is placed, and application versions during a rolling update.
 */
class MemberPlacementClusterTest {

    /** Counter's number of shards. */
    private static final int SHARDS = 20;

    private final TestCluster cluster = TestCluster.of(Counter.type());

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static UnaryOperator<ShardingSettings> member(MemberSettings member) {
        return s -> s.withMember(member);
    }

    private static UnaryOperator<ShardingSettings> roles(String... roles) {
        return s -> s.withMember(MemberSettings.DEFAULT.withRoles(Set.of(roles)))
                .withEntity(
                        "counter", EntityTypeSettings.builder().role("backend").build());
    }

    // ---- roles --------------------------------------------------------------------------------------------------

    @Test
    void aTypeWithARoleIsHostedOnlyOnNodesWithItAndRoutedByTheOthers() throws Exception {
        ShardingNode web = cluster.startNode(roles("web"));
        ShardingNode backend1 = cluster.startNode(roles("backend", "batch"));
        ShardingNode backend2 = cluster.startNode(roles("backend"));
        assertThat(web.localRegion("counter").proxyOnly()).isTrue();
        assertThat(backend1.localRegion("counter").proxyOnly()).isFalse();

        for (int i = 0; i < 60; i++) {
            ShardingNode caller = List.of(web, backend1, backend2).get(i % 3);
            Counter.Total t = caller.region(Counter.class)
                    .ask("r-" + i, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.node()).isIn(backend1.nodeName(), backend2.nodeName());
        }
        assertThat(web.localRegion("counter").entityIds()).isEmpty();
        assertThat(backend1.localRegion("counter").entityIds()).isNotEmpty();
        assertThat(backend2.localRegion("counter").entityIds()).isNotEmpty();

        ClusterState state = web.admin().clusterState(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertThat(state.memberInfo().get(web.self()).roles()).containsExactly("web");
        assertThat(state.memberInfo().get(backend1.self()).roles()).containsExactlyInAnyOrder("backend", "batch");
    }

    @Test
    void messagesWaitUntilANodeWithTheRoleJoins() throws Exception {
        ShardingNode web = cluster.startNode(roles("web"));
        CompletableFuture<Counter.Total> early =
                web.region(Counter.class).ask("early", new Counter.Add(5), Counter.Total.class, Duration.ofSeconds(30));
        ShardingNode backend = cluster.startNode(roles("backend"));
        Counter.Total t = early.get(30, TimeUnit.SECONDS);
        assertThat(t.node()).isEqualTo(backend.nodeName());
        assertThat(t.total()).isEqualTo(5);
    }

    // ---- minimum number of members --------------------------------------------------------------------------------

    @Test
    void noShardIsPlacedBeforeEnoughMembersJoinedAndTheFirstShardsSpreadOverAll() throws Exception {
        UnaryOperator<ShardingSettings> three = member(MemberSettings.DEFAULT.withMinNrOfMembers(3));
        ShardingNode first = cluster.startNode(three);
        List<CompletableFuture<Counter.Total>> waiting = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            waiting.add(first.region(Counter.class)
                    .ask("m-" + i, new Counter.Add(1), Counter.Total.class, Duration.ofSeconds(60)));
        }
        Awaitility.await("the coordinator says why it waits")
                .atMost(TestCluster.FORMATION)
                .until(() -> first.placementWait() != null);
        assertThat(first.placementWait()).contains("sharding.min-nr-of-members").contains("1 registered");
        ShardingNode second = cluster.startNode(three);
        assertThat(second.placementWait()).isNotNull();
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        assertThat(first.localRegion("counter").entityIds()).isEmpty();

        ShardingNode third = cluster.startNode(three);
        for (CompletableFuture<Counter.Total> f : waiting) {
            f.get(30, TimeUnit.SECONDS);
        }
        // the waiting requests were placed together, over the three members, before any rebalance could run
        for (ShardingNode n : List.of(first, second, third)) {
            assertThat(n.localRegion("counter").entityIds().size())
                    .as(n.nodeName())
                    .isBetween(SHARDS / 3 - 1, SHARDS / 3 + 2);
            assertThat(n.placementWait()).isNull();
        }
    }

    // ---- rolling update -------------------------------------------------------------------------------------------

    @Test
    void aRollingUpdateMovesShardsOnlyToTheNewVersionAndDoesNotRebalanceUntilItIsDone() throws Exception {
        UnaryOperator<ShardingSettings> v1 = s -> s.withRebalance(s.rebalance().withInterval(Duration.ofSeconds(1)))
                .withMember(MemberSettings.DEFAULT.withAppVersion("1.0.0"));
        UnaryOperator<ShardingSettings> v2 = s -> s.withRebalance(s.rebalance().withInterval(Duration.ofSeconds(1)))
                .withMember(MemberSettings.DEFAULT.withAppVersion("1.1.0"));
        List<ShardingNode> old = cluster.startNodes(3, v1);
        askAll(old.get(0));
        Map<Integer, String> homes = homes();
        assertThat(homes).hasSize(SHARDS);
        Map<Integer, Integer> moves = new HashMap<>();
        Set<String> newNodes = new java.util.HashSet<>();

        for (int step = 0; step < 3; step++) {
            ShardingNode leaving = old.get(step);
            leaving.close(); // graceful: its shards are handed off
            cluster.awaitConverged();
            askAll(cluster.running().get(0));
            Map<Integer, String> after = homes();
            countMoves(homes, after, moves, newNodes, step > 0);
            homes = after;

            ShardingNode started = cluster.startNode(v2);
            newNodes.add(started.nodeName());
            if (step < 2) {
                askAll(started);
                // the new node hosts nothing, yet an operator's round now moves nothing while two versions run
                AdminResult round =
                        cluster.coordinatorNode().admin().rebalance().get(10, TimeUnit.SECONDS);
                assertThat(round.message()).contains("rolling update");
                assertThat(homes()).as("no rebalance while two versions run").isEqualTo(homes);
            }
        }
        // one version again: the load is evened out (and no shard is between two homes, as during a handoff)
        Awaitility.await("rebalanced over the three new nodes")
                .atMost(TestCluster.FORMATION)
                .until(() -> cluster.running().stream()
                                .allMatch(n ->
                                        n.localRegion("counter").entityIds().size() >= SHARDS / 3 - 1)
                        && homes().size() == SHARDS);
        Map<Integer, String> last = homes();
        countMoves(homes, last, moves, newNodes, true);

        int max = moves.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        long once = moves.values().stream().filter(n -> n == 1).count();
        System.out.println(
                "[rolling update] moves per shard over " + SHARDS + " shards: " + new java.util.TreeMap<>(moves)
                        + "; at most " + max + ", " + once + " moved once, total "
                        + moves.values().stream().mapToInt(Integer::intValue).sum());
        // a shard moves at most once per step (off the node that stops), then once more in the final rebalance:
        // no rebalance round moves anything while two versions run
        assertThat(max).isLessThanOrEqualTo(4);
    }

    @Test
    void startingEachNewNodeBeforeStoppingAnOldOneMovesShardsOnlyFromOldToNew() throws Exception {
        UnaryOperator<ShardingSettings> v1 = s -> s.withRebalance(s.rebalance().withInterval(Duration.ofSeconds(1)))
                .withMember(MemberSettings.DEFAULT.withAppVersion("2.3.9"));
        UnaryOperator<ShardingSettings> v2 = s -> s.withRebalance(s.rebalance().withInterval(Duration.ofSeconds(1)))
                .withMember(MemberSettings.DEFAULT.withAppVersion("2.3.10"));
        List<ShardingNode> old = cluster.startNodes(3, v1);
        askAll(old.get(0));
        Map<Integer, String> homes = homes();
        Map<Integer, Integer> moves = new HashMap<>();
        Set<String> newNodes = new java.util.HashSet<>();
        for (int step = 0; step < 3; step++) {
            ShardingNode started = cluster.startNode(v2);
            newNodes.add(started.nodeName());
            askAll(started);
            assertThat(homes())
                    .as("nothing moves to the new node while old ones run")
                    .isEqualTo(homes);
            old.get(step).close();
            cluster.awaitConverged();
            askAll(started);
            Map<Integer, String> after = homes();
            countMoves(homes, after, moves, newNodes, true);
            homes = after;
        }
        Awaitility.await("balanced over the three new nodes, no shard between two homes")
                .atMost(TestCluster.FORMATION)
                .until(() -> cluster.running().stream()
                                .allMatch(n ->
                                        n.localRegion("counter").entityIds().size() >= SHARDS / 3 - 1)
                        && homes().size() == SHARDS);
        countMoves(homes, homes(), moves, newNodes, true);
        int total = moves.values().stream().mapToInt(Integer::intValue).sum();
        System.out.println("[rolling update, new node first] moves per shard: " + new java.util.TreeMap<>(moves)
                + "; total " + total);
        assertThat(moves).as("every shard left its old node").hasSize(SHARDS);
        // each moved once, off its old node to a new one: the old node hands its shards to the new ones with the
        // fewest, and a coordinator's node leaves only after it has placed the shards it moved, so no shard is left
        // without a home for the next coordinator to place unevenly (and move again at the end)
        assertThat(moves.values()).as("moves per shard").allMatch(n -> n == 1);
    }

    /** Every id answers, so that every shard is hosted and its entities live where it is. */
    private static void askAll(ShardingNode via) throws Exception {
        for (int i = 0; i < 200; i++) {
            via.region(Counter.class)
                    .ask("u-" + i, new Counter.Get(), Counter.Total.class)
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private Map<Integer, String> homes() {
        Map<Integer, String> homes = new HashMap<>();
        for (ShardingNode n : cluster.running()) {
            n.localRegion("counter").entityIds().keySet().forEach(shard -> {
                String previous = homes.put(shard, n.nodeName());
                assertThat(previous).as("shard %d hosted twice", shard).isNull();
            });
        }
        return homes;
    }

    /**
     * Counts the shards that moved between two snapshots, and checks that once a new node runs, every moved shard
     * went to a new node.
     */
    private static void countMoves(
            Map<Integer, String> before,
            Map<Integer, String> after,
            Map<Integer, Integer> moves,
            Set<String> newNodes,
            boolean newNodeRuns) {
        assertThat(after.keySet()).isEqualTo(before.keySet());
        before.forEach((shard, home) -> {
            String now = after.get(shard);
            if (!home.equals(now)) {
                moves.merge(shard, 1, Integer::sum);
                if (newNodeRuns) {
                    assertThat(newNodes)
                            .as("shard %d moved from %s to an old node %s", shard, home, now)
                            .contains(now);
                }
            }
        });
    }
}
