package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.DaemonProcess;
import dev.sharding.ShardedDaemonProcess;
import dev.sharding.ShardingNode;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sharded daemon process: every worker starts soon after the cluster forms, exactly one instance of each index
 * runs at a time, and a worker of a node that crashes or leaves starts again on another node.
 */
class ShardedDaemonProcessClusterTest {

    private static final int COUNT = 6;

    /** Where each index runs now. */
    private final Map<Integer, String> running = new ConcurrentHashMap<>();

    /** Starts of an index already running somewhere: must stay empty. */
    private final List<String> overlaps = new CopyOnWriteArrayList<>();

    private final DaemonProcess process = ctx -> {
        String before = running.putIfAbsent(ctx.index(), ctx.nodeName());
        if (before != null) {
            overlaps.add(ctx.index() + " on " + ctx.nodeName() + " while on " + before);
        }
        assertThat(ctx.name()).isEqualTo("pollers");
        assertThat(ctx.count()).isEqualTo(COUNT);
        return () -> running.remove(ctx.index(), ctx.nodeName());
    };

    private final InMemoryShardingStore store = new InMemoryShardingStore();

    private final TestCluster cluster = new TestCluster(s -> ShardingNode.builder(s)
            .entityType(ShardedDaemonProcess.of("pollers", COUNT, process))
            .store(store));

    @AfterEach
    void stop() {
        cluster.close();
    }

    private void awaitAllRunningOn(List<ShardingNode> nodes) {
        Awaitility.await("every worker running on "
                        + nodes.stream().map(ShardingNode::nodeName).toList())
                .atMost(Duration.ofSeconds(30))
                .until(() -> running.size() == COUNT
                        && nodes.stream().map(ShardingNode::nodeName).toList().containsAll(running.values()));
    }

    @Test
    void everyWorkerRunsOnceAndMovesWhenItsNodeCrashesOrLeaves() {
        // placement waits for the three, so that the workers spread over them
        List<ShardingNode> nodes =
                cluster.startNodes(3, s -> s.withMember(s.member().withMinNrOfMembers(3)));
        awaitAllRunningOn(nodes);
        assertThat(Map.copyOf(running).values().stream().distinct().count())
                .as("spread over the nodes")
                .isGreaterThan(1);

        ShardingNode victim = nodes.stream()
                .filter(n -> running.containsValue(n.nodeName()))
                .reduce((a, b) -> b)
                .orElseThrow();
        cluster.awaitStable();
        victim.crash();
        running.values().removeIf(victim.nodeName()::equals); // its workers died with it
        cluster.awaitConverged();
        List<ShardingNode> alive = nodes.stream().filter(n -> n != victim).toList();
        awaitAllRunningOn(alive);

        ShardingNode leaving = alive.stream()
                .filter(n -> running.containsValue(n.nodeName()))
                .findFirst()
                .orElseThrow();
        leaving.close();
        ShardingNode last = alive.stream().filter(n -> n != leaving).findFirst().orElseThrow();
        awaitAllRunningOn(List.of(last));
        assertThat(overlaps).as("no index ran in two places at once").isEmpty();
    }

    @Test
    void aDaemonProcessIsCheckedWhenMade() {
        assertThatThrownBy(() -> ShardedDaemonProcess.of("p", 0, process))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 1000 workers");
        assertThatThrownBy(() -> ShardedDaemonProcess.of("bad name", 2, process))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid entity type name");
    }
}
