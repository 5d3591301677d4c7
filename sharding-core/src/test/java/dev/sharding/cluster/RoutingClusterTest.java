package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoutingClusterTest {

    private final TestCluster cluster = TestCluster.of(Counter.type());

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void everyEntityHasOneHomeAndIsReachedFromEveryNode() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        Map<String, String> homes = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            String id = "e-" + i;
            ShardingNode via = nodes.get(i % 3);
            Counter.Total t = via.region(Counter.class)
                    .ask(id, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.total()).isEqualTo(1);
            homes.put(id, t.node());
        }
        // scenario 1 (local) and 2 (remote, cached home) from every node: same home, state kept
        for (ShardingNode via : nodes) {
            for (int i = 0; i < 60; i++) {
                String id = "e-" + i;
                Counter.Total t = via.region(Counter.class)
                        .ask(id, new Counter.Get(), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS);
                assertThat(t.node())
                        .as("home of %s seen from %s", id, via.nodeName())
                        .isEqualTo(homes.get(id));
                assertThat(t.total()).isEqualTo(1);
            }
        }
        assertThat(homes.values()).containsOnly("n1", "n2", "n3");
        for (ShardingNode n : nodes) {
            for (List<String> ids : n.localRegion("counter").entityIds().values()) {
                for (String id : ids) {
                    assertThat(homes.get(id)).isEqualTo(n.nodeName());
                }
            }
        }
    }

    @Test
    void aBurstOfNewShardsIsSpreadEvenly() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        List<CompletableFuture<Counter.Total>> replies = new java.util.ArrayList<>();
        for (int i = 0; i < 400; i++) {
            replies.add(nodes.get(i % 3).region(Counter.class).ask("b-" + i, new Counter.Add(1), Counter.Total.class));
        }
        for (CompletableFuture<Counter.Total> r : replies) {
            r.get(10, TimeUnit.SECONDS);
        }
        // 20 shards over 3 regions, allocated while requests for many shards are in flight at once
        List<Integer> hosted = nodes.stream()
                .map(n -> n.localRegion("counter").entityIds().size())
                .toList();
        assertThat(hosted.stream().mapToInt(Integer::intValue).sum()).isEqualTo(20);
        assertThat(hosted).allSatisfy(h -> assertThat(h).isBetween(6, 7));
    }

    @Test
    void handlerFailureFailsTheAskAndTheEntityKeepsRunning() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Counter> region = nodes.get(0).region(Counter.class);
        for (int i = 0; i < 10; i++) {
            String id = "f-" + i;
            region.ask(id, new Counter.Add(5), Counter.Total.class).get(10, TimeUnit.SECONDS);
            CompletableFuture<Counter.Total> failed =
                    region.ask(id, new Counter.Fail("boom " + i), Counter.Total.class);
            assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(EntityException.class)
                    .hasMessageContaining("boom " + i)
                    .hasMessageContaining(IllegalStateException.class.getName());
            assertThat(region.ask(id, new Counter.Get(), Counter.Total.class)
                            .get(10, TimeUnit.SECONDS)
                            .total())
                    .isEqualTo(5);
        }
    }

    @Test
    void asyncHandlerHoldsTheMailboxUntilItCompletes() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Counter> region = nodes.get(1).region(Counter.class);
        List<CompletableFuture<Counter.Total>> replies = new java.util.ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            replies.add(region.ask(
                    "async", i % 2 == 0 ? new Counter.AddLater(1, 5) : new Counter.Add(1), Counter.Total.class));
        }
        for (int i = 1; i <= 20; i++) {
            assertThat(replies.get(i - 1).get(10, TimeUnit.SECONDS).count()).isEqualTo(i);
        }
    }
}
