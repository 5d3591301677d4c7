package dev.sharding.test;

import dev.sharding.EntityType;
import dev.sharding.JgroupsSettings;
import dev.sharding.Member;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;

/**
 * Builds clusters of {@link ShardingNode}s in one JVM over JGroups' SHARED_LOOPBACK, each cluster with a unique name,
 * and waits for conditions (views, registration) instead of sleeping.
 */
public final class TestCluster implements AutoCloseable {

    /** The class path resource of the in-JVM stack. */
    public static final String STACK = "shared-loopback.xml";

    /** How long cluster formation may take on a loaded 2-core machine. */
    public static final Duration FORMATION = Duration.ofSeconds(30);

    private final String clusterName = "test-" + UUID.randomUUID();

    private final Function<ShardingSettings, ShardingNode.Builder> builder;

    private final List<ShardingNode> nodes = new ArrayList<>();

    private int counter;

    /**
     * A cluster whose nodes are made by a function of their settings.
     *
     * @param builder makes a node's builder from its settings (add entity types there)
     */
    public TestCluster(Function<ShardingSettings, ShardingNode.Builder> builder) {
        this.builder = builder;
    }

    /**
     * A cluster whose nodes all run the given entity types.
     *
     * @param types the types
     * @return the cluster
     */
    public static TestCluster of(EntityType<?>... types) {
        return new TestCluster(settings -> {
            ShardingNode.Builder b = ShardingNode.builder(settings);
            for (EntityType<?> t : types) {
                b.entityType(t);
            }
            return b;
        });
    }

    /**
     * Settings for a node of this cluster.
     *
     * @param name the node name
     * @return the settings
     */
    public ShardingSettings settings(String name) {
        return ShardingSettings.defaults()
                .withClusterName(clusterName)
                .withNodeName(name)
                .withJgroups(JgroupsSettings.defaults().withConfig(STACK))
                .withRetryInterval(Duration.ofMillis(300))
                .withSplitBrain(dev.sharding.SplitBrainSettings.DEFAULT.withStableAfter(STABLE_AFTER))
                .withBackpressure(BACKPRESSURE);
    }

    /**
     * The backpressure of test clusters: a test that tells in a loop as fast as it can, faster than the busy nodes of
     * one JVM take it, expects to be slowed down, not to lose tells after the default 50 ms; tests of backpressure
     * set their own.
     */
    public static final dev.sharding.BackpressureSettings BACKPRESSURE = dev.sharding.BackpressureSettings.DEFAULT
            .withMaxWait(Duration.ofSeconds(10))
            .withSuspectAfter(Duration.ofSeconds(30));

    /**
     * The stable-after of test clusters: the in-JVM stack notices a lost member in 1.8 s (FD_ALL3 1.5 s +
     * VERIFY_SUSPECT2 0.3 s), so a view that lasted 2 s was seen by every member.
     */
    public static final Duration STABLE_AFTER = Duration.ofSeconds(2);

    /**
     * Starts one more node and waits until every running node sees it and all are registered.
     *
     * @return the node
     */
    public ShardingNode startNode() {
        return startNode(UnaryOperator.identity());
    }

    /**
     * Starts one more node with changed settings and waits until the cluster has converged.
     *
     * @param change changes the node's settings
     * @return the node
     */
    public ShardingNode startNode(UnaryOperator<ShardingSettings> change) {
        String name = "n" + (++counter);
        ShardingNode node = builder.apply(change.apply(settings(name))).build();
        node.start();
        nodes.add(node);
        awaitConverged();
        return node;
    }

    /**
     * Starts several nodes one after the other.
     *
     * @param n how many
     * @return the nodes
     */
    public List<ShardingNode> startNodes(int n) {
        return startNodes(n, UnaryOperator.identity());
    }

    /**
     * Starts several nodes with changed settings, one after the other.
     *
     * @param n how many
     * @param change changes each node's settings
     * @return the nodes
     */
    public List<ShardingNode> startNodes(int n, UnaryOperator<ShardingSettings> change) {
        List<ShardingNode> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            started.add(startNode(change));
        }
        return started;
    }

    /**
     * Waits until every running node has the same view of exactly the running nodes, and is registered.
     */
    public void awaitConverged() {
        Awaitility.await("view of " + names() + " installed and every node registered")
                .atMost(FORMATION)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    Set<Member> expected =
                            running().stream().map(ShardingNode::self).collect(Collectors.toSet());
                    for (ShardingNode n : running()) {
                        if (!Set.copyOf(n.members()).equals(expected) || !n.isRegistered() || !n.isServing()) {
                            return false;
                        }
                    }
                    ShardingNode oldest = running().stream()
                            .filter(n -> n.self().equals(n.members().get(0)))
                            .findFirst()
                            .orElse(null);
                    return oldest != null && oldest.isCoordinatorReady();
                });
    }

    /**
     * Waits until every running node's view has lasted the split-brain stable-after: a test that crashes or cuts
     * off a node right after the membership changed would otherwise see the cluster stop, as it must (the lost member
     * cannot be told from a partition against the membership before the change).
     */
    public void awaitStable() {
        awaitConverged();
        Awaitility.await("views of " + names() + " stable")
                .atMost(FORMATION)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> running().stream().allMatch(ShardingNode::isViewStable));
    }

    /**
     * The nodes that run.
     *
     * @return the nodes, in start order
     */
    public List<ShardingNode> running() {
        return nodes.stream().filter(ShardingNode::isRunning).toList();
    }

    /**
     * The node hosting the active coordinator.
     *
     * @return the node
     */
    public ShardingNode coordinatorNode() {
        return running().stream()
                .filter(n -> n.self().equals(n.coordinator()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("No coordinator among " + names()));
    }

    private List<String> names() {
        return running().stream().map(ShardingNode::nodeName).toList();
    }

    @Override
    public void close() {
        for (ShardingNode n : nodes) {
            if (n.isRunning()) {
                n.close();
            }
        }
    }
}
