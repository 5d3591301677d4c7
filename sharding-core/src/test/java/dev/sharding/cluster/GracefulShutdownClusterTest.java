package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ClusterState;
import dev.sharding.ShardingNode;
import dev.sharding.test.Journal;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node leaves gracefully while load goes through the others: its shards are handed off first, and not one ask
 * fails, not one message is lost or reordered. The same for the coordinator's node.
 */
class GracefulShutdownClusterTest {

    private static final List<String> IDS =
            IntStream.range(0, 40).mapToObj(i -> "g-" + i).toList();

    private final TestCluster cluster = TestCluster.of(Journal.type());

    private final LoadDriver load = new LoadDriver(IDS);

    @BeforeEach
    void reset() {
        Journal.reset();
    }

    @AfterEach
    void stop() {
        Journal.stopGate = null;
        load.close();
        cluster.close();
    }

    @Test
    void aPlainNodeLeavesUnderLoadWithZeroFailedAsks() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode leaver = nodes.get(2);
        load.start("via-n1", nodes.get(0).region(Journal.class));
        load.start("via-n2", nodes.get(1).region(Journal.class));
        load.awaitProgress(20);
        assertThat(leaver.localRegion("journal").entityIds()).isNotEmpty();

        // hold the handoff in "stopping" to see the node reported as leaving
        CountDownLatch gate = new CountDownLatch(1);
        Journal.stopGate = gate;
        CompletableFuture<Void> leaving = CompletableFuture.runAsync(leaver::close);
        Awaitility.await("leaver reported as leaving, with handoffs in progress")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    ClusterState s = nodes.get(0)
                            .admin()
                            .clusterState(Duration.ofSeconds(2))
                            .get(5, TimeUnit.SECONDS);
                    return s.leaving().contains(leaver.self()) && !s.handoffs().isEmpty();
                });
        assertThat(leaver.isLeaving()).isTrue();
        gate.countDown();
        Journal.stopGate = null;
        leaving.get(60, TimeUnit.SECONDS);
        cluster.awaitConverged();
        load.awaitProgress(20);
        load.assertNothingLost();
        assertThat(nodes.get(0).localRegion("journal").entityIds().size()
                        + nodes.get(1).localRegion("journal").entityIds().size())
                .isPositive();
    }

    @Test
    void theCoordinatorLeavesUnderLoadWithZeroFailedAsks() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode coordinator = cluster.coordinatorNode();
        assertThat(coordinator).isSameAs(nodes.get(0));
        load.start("via-n2", nodes.get(1).region(Journal.class));
        load.start("via-n3", nodes.get(2).region(Journal.class));
        load.awaitProgress(20);
        assertThat(coordinator.localRegion("journal").entityIds()).isNotEmpty();

        coordinator.close();
        cluster.awaitConverged();
        assertThat(cluster.coordinatorNode()).isSameAs(nodes.get(1));
        load.awaitProgress(20);
        load.assertNothingLost();
    }
}
