package dev.sharding.test;

import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.jgroups.Address;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.util.UUID;

/**
 * An in-JVM cluster whose network a test can cut: every node's stack has JGroups' DISCARD above SHARED_LOOPBACK, so
 * a test can split the nodes into sides that no longer hear each other, isolate one node (its transport suspended,
 * as a frozen process), and heal. All nodes share one store.
 */
public final class PartitionCluster implements AutoCloseable {

    /** The in-JVM stack with the partition injector. */
    public static final String STACK = "shared-loopback-partition.xml";

    private final Map<String, JChannel> channels = new ConcurrentHashMap<>();

    /** Whether the next node started finds nobody: see {@link #startAloneThenMerge}. */
    private volatile boolean loneNext;

    private final TestCluster cluster;

    /**
     * A cluster of nodes running the given types over one store.
     *
     * @param store the store every node uses
     * @param change changes every node's settings
     * @param types the entity types
     */
    public PartitionCluster(ShardingStore store, UnaryOperator<ShardingSettings> change, EntityType<?>... types) {
        this.cluster = new TestCluster(settings -> {
            ShardingNode.Builder b = ShardingNode.builder(
                            change.apply(settings.withJgroups(settings.jgroups().withConfig(STACK))))
                    .store(store);
            for (EntityType<?> t : types) {
                b.entityType(t);
            }
            String name = settings.nodeName();
            b.channelCustomizer(ch -> {
                channels.put(name, ch);
                if (loneNext) {
                    loneNext = false;
                    startAlone(ch);
                }
            });
            return b;
        });
    }

    /**
     * Starts nodes one after the other and waits until they formed one cluster.
     *
     * @param n how many
     * @return the nodes
     */
    public List<ShardingNode> startNodes(int n) {
        List<ShardingNode> nodes = cluster.startNodes(n);
        cluster.awaitStable();
        return nodes;
    }

    /** Waits until every running node sees all running nodes and is registered. */
    public void awaitConverged() {
        cluster.awaitConverged();
        Awaitility.await("every node serves")
                .atMost(TestCluster.FORMATION)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> cluster.running().stream().allMatch(n -> n.partitionedReason() == null));
    }

    private DISCARD discard(ShardingNode node) {
        JChannel ch = channels.get(node.nodeName());
        if (ch == null) {
            throw new IllegalStateException("No channel for " + node.nodeName());
        }
        DISCARD d = ch.getProtocolStack().findProtocol(DISCARD.class);
        if (d == null) {
            throw new IllegalStateException("No DISCARD in the stack of " + node.nodeName());
        }
        return d;
    }

    private Address address(ShardingNode node) {
        return channels.get(node.nodeName()).getAddress();
    }

    /**
     * Cuts the network between two sides: no message from one side reaches the other.
     *
     * @param a one side
     * @param b the other
     */
    public void split(Collection<ShardingNode> a, Collection<ShardingNode> b) {
        for (ShardingNode x : a) {
            for (ShardingNode y : b) {
                discard(x).addIgnoreMember(address(y));
                discard(y).addIgnoreMember(address(x));
            }
        }
    }

    /**
     * Cuts one direction only: nothing {@code from} sends reaches {@code to}, while {@code to} still reaches
     * {@code from} (a switch that drops one direction, a one-way firewall rule).
     *
     * @param from the sender whose messages are lost
     * @param to the receiver that no longer hears it
     */
    public void cutOneWay(ShardingNode from, ShardingNode to) {
        discard(to).addIgnoreMember(address(from));
    }

    /**
     * Cuts the link between two nodes both ways while each still reaches every other node (A cannot reach B while both
     * reach C).
     *
     * @param a one node
     * @param b the other
     */
    public void cutBetween(ShardingNode a, ShardingNode b) {
        cutOneWay(a, b);
        cutOneWay(b, a);
    }

    /**
     * Cuts the network between two sides and heals it again, over and over, until the time is up, then heals it.
     * Runs on the calling thread.
     *
     * @param a one side
     * @param b the other
     * @param period how long each cut, and each healed spell after it, lasts
     * @param duration how long to go on
     * @return how many cuts were made
     * @throws InterruptedException when interrupted
     */
    public int flap(Collection<ShardingNode> a, Collection<ShardingNode> b, Duration period, Duration duration)
            throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        int cuts = 0;
        while (System.nanoTime() < end) {
            split(a, b);
            cuts++;
            Thread.sleep(period.toMillis());
            heal();
            Thread.sleep(period.toMillis());
        }
        heal();
        return cuts;
    }

    /**
     * Starts one more node that finds nobody when it joins, as a node restarted on a starved machine may (no discovery
     * answer within the join timeout), so that it forms a cluster of its own; once it has, the network is healed and
     * the two clusters merge. Its address is lower than any other's, so that the merged cluster's coordinator is this
     * node (JGroups puts the subgroup of the lowest coordinator first). Returns once every node sees all of them and
     * serves.
     *
     * @return the node
     */
    public ShardingNode startAloneThenMerge() {
        loneNext = true;
        Thread healer = new Thread(
                () -> {
                    try {
                        Awaitility.await("a node alone in a cluster of its own")
                                .atMost(TestCluster.FORMATION)
                                .pollInterval(Duration.ofMillis(20))
                                .until(() -> channels.values().stream().anyMatch(PartitionCluster::alone));
                    } finally {
                        // the lone node may not be among the running ones yet: it is still starting
                        channels.values().stream()
                                .filter(PartitionCluster::lone)
                                .forEach(ch -> {
                                    DISCARD d = ch.getProtocolStack().findProtocol(DISCARD.class);
                                    d.discardAll(false);
                                });
                        heal();
                    }
                },
                "partition-cluster-healer");
        healer.setDaemon(true);
        healer.start();
        return cluster.startNode();
    }

    private static boolean lone(JChannel ch) {
        Address a = ch.getAddress();
        return a != null && a.compareTo(LONE_ADDRESS_BELOW) < 0;
    }

    private static boolean alone(JChannel ch) {
        return lone(ch) && ch.getView() != null && ch.getView().size() == 1;
    }

    /** Every lone node's address is below this one, and every other node's above it. */
    private static final UUID LONE_ADDRESS_BELOW = new UUID(Long.MIN_VALUE + 1_000_000, 0);

    /** Drops everything the channel sends or receives, and gives up joining after one attempt, with a low address. */
    private static void startAlone(JChannel ch) {
        ch.addAddressGenerator(() -> new UUID(
                Long.MIN_VALUE
                        + java.util.concurrent.ThreadLocalRandom.current().nextInt(1_000_000),
                java.util.concurrent.ThreadLocalRandom.current().nextLong()));
        DISCARD d = ch.getProtocolStack().findProtocol(DISCARD.class);
        d.discardAll(true);
        GMS gms = ch.getProtocolStack().findProtocol(GMS.class);
        gms.setMaxJoinAttempts(1);
    }

    /**
     * Suspends a node's transport: it neither sends nor receives anything, as if frozen.
     *
     * @param node the node
     */
    public void isolate(ShardingNode node) {
        discard(node).discardAll(true);
    }

    /** Heals every cut and suspension. */
    public void heal() {
        for (ShardingNode n : cluster.running()) {
            discard(n).resetIgnoredMembers().discardAll(false);
        }
    }

    /**
     * Waits until each node of a side sees exactly that side.
     *
     * @param side the nodes
     * @param timeout how long at most
     */
    public void awaitView(Collection<ShardingNode> side, Duration timeout) {
        Set<String> expected = side.stream().map(ShardingNode::nodeName).collect(Collectors.toSet());
        Awaitility.await("view " + expected + " on each of them")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> side.stream()
                        .allMatch(n -> n.members().stream()
                                .map(dev.sharding.Member::name)
                                .collect(Collectors.toSet())
                                .equals(expected)));
    }

    /**
     * The running nodes.
     *
     * @return the nodes
     */
    public List<ShardingNode> running() {
        return cluster.running();
    }

    @Override
    public void close() {
        heal();
        cluster.close();
    }
}
