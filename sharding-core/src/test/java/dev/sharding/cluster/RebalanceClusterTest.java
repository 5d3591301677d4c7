package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AdminResult;
import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Rebalancing at the default settings, and the operator's requests with their errors.
 */
class RebalanceClusterTest {

    private final TestCluster cluster = TestCluster.of(Counter.type().withNumberOfShards(100));

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static int hosted(ShardingNode n) {
        return n.localRegion("counter").entityIds().size();
    }

    @Test
    void aThirdNodeGetsItsFairShareOfOneHundredShardsAtTheDefaults() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Counter> region = nodes.get(0).region(Counter.class);
        List<CompletableFuture<Counter.Total>> replies = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            replies.add(region.ask("r-" + i, new Counter.Add(1), Counter.Total.class, Duration.ofSeconds(30)));
        }
        for (CompletableFuture<Counter.Total> r : replies) {
            r.get(30, TimeUnit.SECONDS);
        }
        assertThat(hosted(nodes.get(0)) + hosted(nodes.get(1))).isEqualTo(100);

        long joined = System.nanoTime();
        ShardingNode newcomer = cluster.startNode();
        Awaitility.await("newcomer hosts at least 30 of 100 shards")
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> hosted(newcomer) >= 30);
        long share = System.nanoTime() - joined;
        for (int i = 0; i < 10_000; i += 10) {
            region.ask("r-" + i, new Counter.Get(), Counter.Total.class).get(30, TimeUnit.SECONDS);
        }
        System.out.printf(
                "rebalance at defaults: newcomer hosted %d of 100 shards %.1f s after joining; every"
                        + " sampled entity answered %.1f s after joining%n",
                hosted(newcomer), share / 1e9, (System.nanoTime() - joined) / 1e9);
        Awaitility.await("balanced within one shard")
                .atMost(Duration.ofSeconds(90))
                .until(() -> cluster.running().stream().allMatch(n -> hosted(n) >= 33 && hosted(n) <= 34));
    }

    @Test
    void operatorRequestsAnswerWithWhatWasDoneOrAClearError() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode n2 = nodes.get(1);
        String id = "op-1";
        int shard = EntityType.shardOf(id, 100);

        assertThat(n2.admin().handOff("counter", shard, null).get(10, TimeUnit.SECONDS))
                .isEqualTo(new AdminResult(false, "Shard " + shard + " of counter is not allocated"));
        Counter.Total t = n2.region(Counter.class)
                .ask(id, new Counter.Add(1), Counter.Total.class)
                .get(10, TimeUnit.SECONDS);
        String other = t.node().equals("n1") ? "n2" : "n1";

        assertThat(n2.admin()
                        .handOff("nosuch", 1, null)
                        .get(10, TimeUnit.SECONDS)
                        .message())
                .isEqualTo("Unknown entity type nosuch");
        assertThat(n2.admin()
                        .handOff("counter", 100, null)
                        .get(10, TimeUnit.SECONDS)
                        .message())
                .isEqualTo("Unknown shard 100 of counter (it has 100 shards)");
        assertThat(n2.admin()
                        .handOff("counter", shard, "n9")
                        .get(10, TimeUnit.SECONDS)
                        .message())
                .isEqualTo("Unknown node n9");
        assertThat(n2.admin()
                        .handOff("counter", shard, t.node())
                        .get(10, TimeUnit.SECONDS)
                        .message())
                .isEqualTo("Shard " + shard + " of counter is already on " + t.node());
        assertThat(n2.admin().rebalance().get(10, TimeUnit.SECONDS))
                .isEqualTo(new AdminResult(true, "Balanced: no shard to move"));

        AdminResult moved = n2.admin().handOff("counter", shard, other).get(10, TimeUnit.SECONDS);
        assertThat(moved.accepted()).isTrue();
        assertThat(moved.message())
                .startsWith("Handing off shard " + shard + " of counter from " + t.node())
                .endsWith("to " + other);
        Awaitility.await("shard moved")
                .atMost(Duration.ofSeconds(30))
                .until(() -> n2.region(Counter.class)
                        .ask(id, new Counter.Get(), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .node()
                        .equals(other));
        assertThat(n2.region(Counter.class)
                        .ask(id, new Counter.Get(), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .total())
                .as("in-memory state restarts after a move")
                .isZero();
    }
}
