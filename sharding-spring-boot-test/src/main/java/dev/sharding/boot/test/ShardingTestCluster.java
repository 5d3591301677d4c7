package dev.sharding.boot.test;

import dev.sharding.Member;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Several nodes of the application under test in one JVM: each an application context of the given sources (the
 * {@code @SpringBootApplication} class, or configuration classes), on the in-JVM loopback stack, all with one cluster
 * name that no other test uses. A test crashes nodes ({@link #kill}), stops them gracefully ({@link #stop}), cuts the
 * network between groups of them and heals it ({@link #network()}), and waits for the cluster to settle
 * ({@link #awaitView()}, {@link #awaitShardStarted}) instead of sleeping. {@link #owners()} and {@link #watchOwners()}
 * check that no entity is alive on two serving nodes at once.
 *
 * <pre>{@code
 * try (ShardingTestCluster cluster = ShardingTestCluster.of(BankApplication.class).start(3)) {
 *     ShardRegion<Account> accounts = cluster.node(1).region(Account.class);
 *     accounts.ask("alice", new Deposit(5), Balance.class).get(10, TimeUnit.SECONDS);
 *     ShardingTestNode owner = cluster.awaitEntityStarted("account", "alice");
 *     cluster.kill(owner);
 *     cluster.awaitView();
 *     ...
 * }
 * }</pre>
 *
 * <p>Every node gets the properties of {@link AutoConfigureShardingTest} (entity state in memory, unless
 * {@link Builder#applicationStore()} is used; local messages through the codec) plus a node name of its own, port 0
 * for a web server, requests repeated every 300 ms, and the builder's {@linkplain Builder#properties properties}. Not thread-safe: one test drives
 * it.
 */
public final class ShardingTestCluster implements AutoCloseable {

    /** How long cluster formation and recovery may take on a loaded machine. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final Builder settings;

    private final String clusterName;

    private final List<ShardingTestNode> nodes = new ArrayList<>();

    private final ClusterNetwork network = new ClusterNetwork(this::nodes);

    private ShardingTestCluster(Builder settings) {
        this.settings = settings;
        this.clusterName = ShardingTestProperties.uniqueClusterName("test-cluster");
    }

    /**
     * Starts describing a cluster of the given application.
     *
     * @param sources the application's {@code @SpringBootApplication} class, or configuration classes
     * @return the builder
     */
    public static Builder of(Class<?>... sources) {
        return new Builder(sources);
    }

    /**
     * The cluster's name, shared by its nodes and by no other test.
     *
     * @return the name
     */
    public String clusterName() {
        return clusterName;
    }

    /**
     * Every node started, running or not, in start order.
     *
     * @return the nodes
     */
    public List<ShardingTestNode> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * The nodes that run, in start order.
     *
     * @return the nodes
     */
    public List<ShardingTestNode> running() {
        return nodes.stream().filter(ShardingTestNode::isRunning).toList();
    }

    /**
     * A node by its number.
     *
     * @param number the node's number, from 1, in start order
     * @return the node
     * @throws IllegalArgumentException when no node has that number
     */
    public ShardingTestNode node(int number) {
        if (number < 1 || number > nodes.size()) {
            throw new IllegalArgumentException(
                    "No node number " + number + ": the cluster started " + nodes.size() + " nodes, numbered from 1");
        }
        return nodes.get(number - 1);
    }

    /**
     * Starts one more node and waits until every running node sees it.
     *
     * @return the node
     */
    public ShardingTestNode startNode() {
        ShardingTestNode node = TestNodeLauncher.launch(
                clusterName,
                nodes.size() + 1,
                settings.sources,
                ShardingTestProperties.of(clusterName, settings.memoryStore, settings.serializeLocalMessages),
                settings.properties);
        nodes.add(node);
        awaitView();
        return node;
    }

    /**
     * Crashes a node: it stops at once, as a killed process would, without handing off its shards or saying goodbye;
     * the others notice through failure detection (about two seconds on the in-JVM stack) and the coordinator
     * allocates its shards anew. Its context is then closed. Before the next crash or stop, wait with
     * {@link #awaitStable()}: a membership change that follows another within the split-brain stable-after cannot be
     * told from a partition, and the survivors stop serving, as they must.
     *
     * @param node the node
     */
    public void kill(ShardingTestNode node) {
        node.node().crash();
        node.context().close();
    }

    /**
     * Stops a node gracefully, as the application's shutdown does: its shards are handed off, then it leaves. Returns
     * once it has left.
     *
     * @param node the node
     */
    public void stop(ShardingTestNode node) {
        node.context().close();
    }

    /**
     * The network between this cluster's nodes, to cut and heal: partitions, one-way and pairwise cuts, flapping links.
     *
     * @return the network
     */
    public ClusterNetwork network() {
        return network;
    }

    /**
     * Waits until every running node sees exactly the running nodes, is registered with the coordinator and serves,
     * and the coordinator is ready.
     *
     * @throws org.awaitility.core.ConditionTimeoutException after {@link Builder#timeout}
     */
    public void awaitView() {
        Awaitility.await("view of " + running() + " installed on each of them, every node registered and serving")
                .atMost(settings.timeout)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    List<ShardingTestNode> running = running();
                    Set<Member> expected =
                            running.stream().map(n -> n.node().self()).collect(Collectors.toSet());
                    for (ShardingTestNode n : running) {
                        ShardingNode node = n.node();
                        if (!Set.copyOf(node.members()).equals(expected) || !node.isRegistered() || !node.isServing()) {
                            return false;
                        }
                    }
                    return running.stream()
                            .map(ShardingTestNode::node)
                            .anyMatch(n -> n.self().equals(n.coordinator()) && n.isCoordinatorReady());
                });
    }

    /**
     * Waits until each node of a group sees exactly that group: after a {@linkplain ClusterNetwork#partition partition}, each side's view.
     *
     * @param side the nodes
     * @throws org.awaitility.core.ConditionTimeoutException after {@link Builder#timeout}
     */
    public void awaitView(Collection<ShardingTestNode> side) {
        Set<String> expected = side.stream().map(ShardingTestNode::name).collect(Collectors.toSet());
        Awaitility.await("view " + expected + " on each of them")
                .atMost(settings.timeout)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> side.stream()
                        .allMatch(n -> n.isRunning()
                                && n.node().members().stream()
                                        .map(Member::name)
                                        .collect(Collectors.toSet())
                                        .equals(expected)));
    }

    /**
     * Waits until every running node's view has lasted the split-brain stable-after: a crash right after a
     * membership change would otherwise stop the cluster, as it must (a member lost then cannot be told from a
     * partition).
     *
     * @throws org.awaitility.core.ConditionTimeoutException after {@link Builder#timeout}
     */
    public void awaitStable() {
        awaitView();
        Awaitility.await("views of " + running() + " stable")
                .atMost(settings.timeout)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> running().stream().allMatch(n -> n.node().isViewStable()));
    }

    /**
     * Waits until a running node that serves hosts a shard.
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @return the node hosting it
     * @throws org.awaitility.core.ConditionTimeoutException after {@link Builder#timeout}
     */
    public ShardingTestNode awaitShardStarted(String typeName, int shardId) {
        return awaitServingNode(
                "shard " + shardId + " of " + typeName + " started",
                n -> n.node().localRegion(typeName).entityIds().containsKey(shardId));
    }

    /**
     * Waits until an entity is alive on a running node that serves.
     *
     * @param typeName the entity type
     * @param entityId the entity
     * @return the node where it lives
     * @throws org.awaitility.core.ConditionTimeoutException after {@link Builder#timeout}
     */
    public ShardingTestNode awaitEntityStarted(String typeName, String entityId) {
        return awaitServingNode(
                "entity " + typeName + "/" + entityId + " alive",
                n -> n.node().localRegion(typeName).entityIds().values().stream()
                        .anyMatch(ids -> ids.contains(entityId)));
    }

    /** Waits until a running node that serves passes a test, and returns it. */
    private ShardingTestNode awaitServingNode(String what, Predicate<ShardingTestNode> test) {
        AtomicReference<ShardingTestNode> host = new AtomicReference<>();
        Awaitility.await(what + " on one of " + running())
                .atMost(settings.timeout)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    host.set(running().stream()
                            .filter(n -> n.node().isServing() && test.test(n))
                            .findFirst()
                            .orElse(null));
                    return host.get() != null;
                });
        return host.get();
    }

    /**
     * Checks now that every entity is alive on at most one serving node.
     *
     * @return what was found
     */
    public OwnerCheck owners() {
        return OwnerCheck.of(running());
    }

    /**
     * Keeps checking that every entity is alive on at most one serving node, until the watch is closed.
     *
     * @return the watch
     */
    public OwnerWatch watchOwners() {
        return new OwnerWatch(this::owners);
    }

    /** Stops every running node gracefully, the newest first, then drops the partition injectors' cuts. */
    @Override
    public void close() {
        network.heal();
        for (int i = nodes.size() - 1; i >= 0; i--) {
            ConfigurableApplicationContext context = nodes.get(i).context();
            if (context.isActive()) {
                context.close();
            }
        }
    }

    /** What the nodes of a cluster are made of. */
    public static final class Builder {

        private final Class<?>[] sources;

        private final List<String> properties = new ArrayList<>();

        private boolean memoryStore = true;

        private boolean serializeLocalMessages = true;

        private Duration timeout = DEFAULT_TIMEOUT;

        private Builder(Class<?>... sources) {
            if (sources.length == 0) {
                throw new IllegalArgumentException("Give the application's class, or configuration classes");
            }
            for (Class<?> source : sources) {
                Objects.requireNonNull(source, "source");
            }
            this.sources = sources.clone();
        }

        /**
         * Adds properties every node gets, over the test defaults.
         *
         * @param values {@code key=value} pairs
         * @return this builder
         */
        public Builder properties(String... values) {
            for (String value : values) {
                if (value == null || value.indexOf('=') < 1) {
                    throw new IllegalArgumentException("A property must be key=value: " + value);
                }
                properties.add(value);
            }
            return this;
        }

        /**
         * Makes the nodes use the store the application configures (JDBC on its {@code DataSource}, or the embedded
         * H2 file) instead of one in memory per node, for example so that entity state survives a crash.
         *
         * @return this builder
         */
        public Builder applicationStore() {
            this.memoryStore = false;
            return this;
        }

        /**
         * Whether messages and replies delivered within a node go through the codec and back (true by default).
         *
         * @param value whether to
         * @return this builder
         */
        public Builder serializeLocalMessages(boolean value) {
            this.serializeLocalMessages = value;
            return this;
        }

        /**
         * How long the await helpers wait at most.
         *
         * @param value the time, positive
         * @return this builder
         */
        public Builder timeout(Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException("The timeout must be positive: " + value);
            }
            this.timeout = value;
            return this;
        }

        /**
         * Starts nodes one after the other and waits until they formed one cluster whose views are stable.
         *
         * @param count how many nodes, at least 1
         * @return the cluster; close it to stop every node
         */
        public ShardingTestCluster start(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("A cluster needs at least one node, not " + count);
            }
            ShardingTestCluster cluster = new ShardingTestCluster(this);
            try {
                for (int i = 0; i < count; i++) {
                    cluster.startNode();
                }
                cluster.awaitStable();
            } catch (RuntimeException | Error e) {
                cluster.close();
                throw e;
            }
            return cluster;
        }
    }
}
