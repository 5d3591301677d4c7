package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingNode;
import dev.sharding.spi.ShardIdFunction;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A type's own shard id function places entities by it on every node; a function that fails or answers out of range
 * fails the send and changes nothing; a node whose function differs refuses what it would not have placed there.
 */
class ShardIdFunctionClusterTest {

    /** All of a customer's entities ({@code "<customer>:<order>"}) in one shard. */
    static final ShardIdFunction BY_CUSTOMER = (id, n) -> {
        int colon = id.indexOf(':');
        return Math.floorMod((colon < 0 ? id : id.substring(0, colon)).hashCode(), n);
    };

    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void entitiesOfOneCustomerLiveInOneShardOnOneNode() throws Exception {
        cluster = TestCluster.of(Counter.type().withShardIdFunction(BY_CUSTOMER));
        List<ShardingNode> nodes = cluster.startNodes(3);
        cluster.awaitConverged();

        Map<String, Set<String>> nodesByCustomer = new HashMap<>();
        for (int c = 0; c < 8; c++) {
            for (int o = 0; o < 15; o++) {
                ShardingNode caller = nodes.get((c + o) % 3);
                Counter.Total t = caller.region(Counter.class)
                        .ask("c" + c + ":o" + o, new Counter.Add(1), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS);
                nodesByCustomer.computeIfAbsent("c" + c, k -> new HashSet<>()).add(t.node());
            }
        }
        nodesByCustomer.forEach(
                (customer, where) -> assertThat(where).as(customer).hasSize(1));

        int shards = 20; // Counter's numberOfShards
        for (ShardingNode node : nodes) {
            node.localRegion("counter").entityIds().forEach((shard, ids) -> {
                for (String id : ids) {
                    assertThat(shard).as(id).isEqualTo(BY_CUSTOMER.shardId(id, shards));
                }
            });
        }
        Set<Integer> used = new HashSet<>();
        nodes.forEach(n -> used.addAll(n.localRegion("counter").entityIds().keySet()));
        assertThat(used).as("8 customers, at most 8 shards").hasSizeLessThanOrEqualTo(8);
    }

    @Test
    void aFunctionThatFailsOrAnswersOutOfRangeFailsTheSendAndChangesNothing() throws Exception {
        ShardIdFunction faulty = (id, n) -> switch (id) {
            case "negative" -> -1;
            case "too-big" -> n;
            case "throws" -> throw new IllegalStateException("no shard for " + id);
            default -> Math.floorMod(id.hashCode(), n);
        };
        cluster = TestCluster.of(Counter.type().withShardIdFunction(faulty));
        ShardingNode node = cluster.startNode();
        cluster.awaitConverged();

        for (String id : List.of("negative", "too-big", "throws")) {
            assertThatThrownBy(() -> node.region(Counter.class).ask(id, new Counter.Add(1), Counter.Total.class))
                    .as(id)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("shard id function of entity type counter");
            assertThatThrownBy(() -> node.region(Counter.class).tell(id, new Counter.Add(1)))
                    .as(id)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(node.region(Counter.class)
                        .ask("fine", new Counter.Add(2), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .total())
                .isEqualTo(2);
        Set<String> live = new HashSet<>();
        node.localRegion("counter").entityIds().values().forEach(live::addAll);
        assertThat(live).containsExactly("fine");
    }

    @Test
    void aNodeWhoseFunctionDiffersRefusesWhatItWouldNotHavePlacedThere() throws Exception {
        // the host puts every id in shard 0; the proxy routes by hash code, so most ids name another shard
        EntityType<Counter> hostType = Counter.type().withShardIdFunction((id, n) -> 0);
        cluster = new TestCluster(settings -> ShardingNode.builder(settings)
                .entityType(settings.entity("counter").proxyOnly() ? Counter.type() : hostType));
        ShardingNode proxy = cluster.startNode(s -> s.withEntity(
                "counter", EntityTypeSettings.builder().proxyOnly(true).build()));
        ShardingNode host = cluster.startNode();
        cluster.awaitConverged();

        String id = "e-1"; // shard 5 of 20 by hash code
        assertThat(ShardIdFunction.HashCode.INSTANCE.shardId(id, 20)).isNotZero();
        assertThatThrownBy(() -> proxy.region(Counter.class)
                        .ask(id, new Counter.Add(1), Counter.Total.class, Duration.ofSeconds(10))
                        .get(15, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(MessageRejectedException.class)
                .hasMessageContaining("shard id function");
        assertThat(host.localRegion("counter").entityIds().values())
                .as("the shard may be hosted, but no entity started")
                .allMatch(List::isEmpty);

        // an id both map to shard 0 goes through
        String zero = null;
        for (int i = 0; zero == null; i++) {
            if (ShardIdFunction.HashCode.INSTANCE.shardId("z-" + i, 20) == 0) {
                zero = "z-" + i;
            }
        }
        assertThat(proxy.region(Counter.class)
                        .ask(zero, new Counter.Add(4), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .node())
                .isEqualTo(host.nodeName());
    }
}
