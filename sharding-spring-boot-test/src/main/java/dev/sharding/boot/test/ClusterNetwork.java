package dev.sharding.boot.test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jgroups.Address;

/**
 * The network between the nodes of a {@link ShardingTestCluster}, to cut and heal ({@link ShardingTestCluster#network()}).
 * Each node's JGroups stack has a message filter just above its transport, so a cut drops every message, failure
 * detection's included, as a broken switch or a firewall would. Not thread-safe: one test drives it.
 */
public final class ClusterNetwork {

    /** Every node of the cluster, running or not. */
    private final Supplier<List<ShardingTestNode>> nodes;

    ClusterNetwork(Supplier<List<ShardingTestNode>> nodes) {
        this.nodes = nodes;
    }

    /**
     * Cuts the network between two groups of nodes: no message from one group reaches the other, in either
     * direction, until {@link #heal()}. Each group then forms a view of its own, and the split-brain strategy decides
     * which side keeps serving.
     *
     * @param side one group
     * @param other the other group
     */
    public void partition(Collection<ShardingTestNode> side, Collection<ShardingTestNode> other) {
        for (ShardingTestNode a : side) {
            for (ShardingTestNode b : other) {
                if (a == b) {
                    throw new IllegalArgumentException("Node " + a.name() + " is on both sides of the partition");
                }
                a.discard().addIgnoreMember(address(b));
                b.discard().addIgnoreMember(address(a));
            }
        }
    }

    /**
     * Cuts one direction of one link: nothing {@code from} sends reaches {@code to}, while {@code to} still reaches
     * {@code from} and both reach every other node (a switch or firewall that drops one direction), until
     * {@link #heal()}. The member that {@code to} cannot hear is reported to the coordinator and removed from the view
     * (or {@code to} itself, when {@code from} is the coordinator).
     *
     * @param from the node whose messages to {@code to} are lost
     * @param to the node that no longer hears it
     */
    public void cutOneWay(ShardingTestNode from, ShardingTestNode to) {
        if (from == to) {
            throw new IllegalArgumentException("Node " + from.name() + " cannot be cut from itself");
        }
        to.discard().addIgnoreMember(address(from));
    }

    /**
     * Cuts the link between two nodes, both ways, while each still reaches every other node (A cannot reach B, both
     * reach C), until {@link #heal()}.
     *
     * @param a one node
     * @param b the other
     */
    public void cutBetween(ShardingTestNode a, ShardingTestNode b) {
        cutOneWay(a, b);
        cutOneWay(b, a);
    }

    /**
     * Cuts the network between two groups and heals it again, over and over, each cut and each healed spell lasting
     * {@code period}, until {@code duration} has passed; then heals it. Runs on the calling thread. Views change at
     * almost every flap when {@code period} is shorter than failure detection and the split-brain strategy's
     * stable-after.
     *
     * @param side one group
     * @param other the other group
     * @param period how long each cut, and each healed spell after it, lasts
     * @param duration how long to go on
     * @return how many cuts were made
     * @throws InterruptedException when interrupted
     */
    public int flap(
            Collection<ShardingTestNode> side, Collection<ShardingTestNode> other, Duration period, Duration duration)
            throws InterruptedException {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("The period of a flapping cut must be positive: " + period);
        }
        long end = System.nanoTime() + duration.toNanos();
        int cuts = 0;
        try {
            while (System.nanoTime() < end) {
                partition(side, other);
                cuts++;
                TimeUnit.NANOSECONDS.sleep(period.toNanos());
                heal();
                TimeUnit.NANOSECONDS.sleep(period.toNanos());
            }
        } finally {
            heal();
        }
        return cuts;
    }

    private static Address address(ShardingTestNode node) {
        Address address = node.address();
        if (address == null) {
            throw new IllegalStateException("Node " + node.name() + " has no address: it is not connected");
        }
        return address;
    }

    /** Heals every cut: the groups hear each other again and merge into one view. */
    public void heal() {
        for (ShardingTestNode n : nodes.get()) {
            n.discard().resetIgnoredMembers();
        }
    }
}
