package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.ClusterState;
import dev.sharding.ShardingNode;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two clusters with different cluster names on one store (one database, the same tables): the first serves; the
 * second finds the first's coordinator lease in the store and is refused for good, every one of its nodes, with a
 * reason naming both clusters, and serves nothing, so that no entity is alive in both.
 */
class TwoClustersOnOneStoreTest {

    private final JdbcDataSource database = new JdbcDataSource();

    private final List<JdbcShardingStore> stores = new ArrayList<>();

    private final TestCluster first = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Counter.type()).store(store()));

    private final TestCluster second = TestCluster.of(Counter.type());

    private final List<ShardingNode> secondNodes = new ArrayList<>();

    TwoClustersOnOneStoreTest() {
        database.setURL("jdbc:h2:mem:two-clusters-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    /** A store of its own for each node, on the one database, as nodes in separate processes have. */
    private JdbcShardingStore store() {
        JdbcShardingStore store = new JdbcShardingStore(database);
        store.createSchema();
        stores.add(store);
        return store;
    }

    @AfterEach
    void stop() {
        secondNodes.forEach(ShardingNode::close);
        first.close();
        second.close();
        stores.forEach(JdbcShardingStore::close);
    }

    @Test
    void theSecondClusterOnTheStoreIsRefusedForGoodAndServesNothing() throws Exception {
        List<ShardingNode> firstNodes = first.startNodes(2);
        Counter.Total before = firstNodes
                .get(0)
                .region(Counter.class)
                .ask("c1", new Counter.Add(1), Counter.Total.class)
                .get(30, TimeUnit.SECONDS);
        assertThat(before.total()).isEqualTo(1);
        String firstName = first.settings("any").clusterName();

        for (String name : List.of("x1", "x2")) {
            ShardingNode node = ShardingNode.builder(second.settings(name))
                    .entityType(Counter.type())
                    .store(store())
                    .build();
            secondNodes.add(node);
            node.start();
        }
        String secondName = second.settings("any").clusterName();
        for (ShardingNode node : secondNodes) {
            Awaitility.await(node.nodeName() + " refused")
                    .atMost(TestCluster.FORMATION)
                    .until(() -> node.refusedReason() != null);
            assertThat(node.refusedReason())
                    .contains("'" + firstName + "'")
                    .contains("'" + secondName + "'")
                    .contains("sharding.store.table-prefix");
            assertThat(node.partitionedReason())
                    .as("why %s refuses messages", node.nodeName())
                    .contains(firstName);
            assertThat(node.localRegion("counter").hostedShards())
                    .as("shards on %s", node.nodeName())
                    .isZero();
        }
        ClusterState state =
                secondNodes.get(1).admin().clusterState(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertThat(state.refused())
                .containsOnlyKeys(secondNodes.stream().map(ShardingNode::self).toList());

        assertThatThrownBy(() -> secondNodes
                        .get(1)
                        .region(Counter.class)
                        .ask("c1", new Counter.Add(100), Counter.Total.class)
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(ClusterPartitionedException.class)
                .hasMessageContaining(firstName);

        Counter.Total after = firstNodes
                .get(1)
                .region(Counter.class)
                .ask("c1", new Counter.Add(1), Counter.Total.class)
                .get(30, TimeUnit.SECONDS);
        assertThat(after.total()).as("the first cluster still serves, alone").isEqualTo(2);
        for (ShardingNode node : firstNodes) {
            assertThat(node.refusedReason()).isNull();
        }
    }
}
