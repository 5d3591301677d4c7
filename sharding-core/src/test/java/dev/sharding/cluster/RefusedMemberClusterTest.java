package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ClusterState;
import dev.sharding.ShardingNode;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose entity type has another number of shards than the cluster's joins the view and is refused by the
 * coordinator for good: the cluster state every node gathers, the coordinator's, another member's and the refused
 * node's own, names it refused and why, and only it.
 */
class RefusedMemberClusterTest {

    private final TestCluster cluster = TestCluster.of(Counter.type());

    private ShardingNode odd;

    @AfterEach
    void stop() {
        if (odd != null && odd.isRunning()) {
            odd.close();
        }
        cluster.close();
    }

    @Test
    void everyNodesClusterStateNamesTheRefusedMemberAndWhy() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        odd = ShardingNode.builder(cluster.settings("odd"))
                .entityType(Counter.type().withNumberOfShards(7))
                .build();
        odd.start();
        Awaitility.await("odd refused by the coordinator")
                .atMost(TestCluster.FORMATION)
                .until(() -> odd.refusedReason() != null);

        for (ShardingNode via : List.of(nodes.get(0), nodes.get(1), odd)) {
            // The coordinator may refuse the odd node before another member has installed the view that holds it.
            Awaitility.await("view of " + via.nodeName() + " holds the odd node")
                    .atMost(TestCluster.FORMATION)
                    .until(() -> via.members().contains(odd.self()));
            ClusterState state = via.admin().clusterState(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            assertThat(state.members()).as("view of %s", via.nodeName()).contains(odd.self());
            assertThat(state.refused())
                    .as("refused members in the cluster state of %s", via.nodeName())
                    .containsOnlyKeys(odd.self());
            assertThat(state.refused().get(odd.self()))
                    .contains("number-of-shards")
                    .contains("7")
                    .contains("20");
        }

        odd.close();
        cluster.awaitConverged();
        ClusterState after =
                nodes.get(1).admin().clusterState(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertThat(after.refused())
                .as("refused members once the refused node left")
                .isEmpty();
    }
}
