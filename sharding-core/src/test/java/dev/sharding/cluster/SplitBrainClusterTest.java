package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.ShardingNode;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.DepositLoad;
import dev.sharding.test.Ledger;
import dev.sharding.test.OwnerLog;
import dev.sharding.test.PartitionCluster;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Network partitions under load with the default strategy, keep-majority: the side that loses stops at once and
 * refuses messages, the side that wins serves every entity again, no acknowledged deposit is lost, no answer shows a
 * balance below what was acknowledged, and no entity lives in two places at once ({@link OwnerLog}). After the heal,
 * the sides merge and every node answers the same balance for every account.
 */
class SplitBrainClusterTest {

    private static final Duration SIDE_TIMEOUT = Duration.ofSeconds(30);

    private final OwnerLog owners = new OwnerLog();

    private final PartitionCluster cluster =
            new PartitionCluster(new InMemoryShardingStore(), s -> s, Ledger.type(owners));

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aThreeTwoSplitKeepsTheMajority() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(5);
        splitUnderLoad(nodes.subList(0, 3), nodes.subList(3, 5));
    }

    @Test
    void aTwoTwoTieIsWonByTheSideOfTheOldestMember() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(4);
        splitUnderLoad(nodes.subList(0, 2), nodes.subList(2, 4));
    }

    @Test
    void theCoordinatorOnTheMinoritySideStopsAndTheMajorityElectsAnother() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(5);
        ShardingNode oldCoordinator = nodes.get(0);
        List<ShardingNode> minority = List.of(nodes.get(0), nodes.get(4));
        List<ShardingNode> majority = List.of(nodes.get(1), nodes.get(2), nodes.get(3));
        splitUnderLoad(majority, minority);
        assertThat(oldCoordinator.partitionedReason()).isNull();
    }

    @Test
    void aFrozenNodeComingBackServesNothingItHeldBefore() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode frozen = nodes.get(2);
        try (DepositLoad load = new DepositLoad(() -> List.of(nodes.get(0), nodes.get(1)), 60, 3)) {
            awaitDeposits(load, 300);
            Map<String, String> homes = homes(nodes.get(0), load.accounts());
            assertThat(homes).containsValue(frozen.nodeName());
            long cut = System.nanoTime();
            cluster.isolate(frozen);
            // the frozen node's lease runs out and its view shrinks to itself: it stops everything it held
            Awaitility.await("frozen node stops serving")
                    .atMost(SIDE_TIMEOUT)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> frozen.partitionedReason() != null);
            assertThat(frozen.localRegion("ledger").entityIds()).isEmpty();
            awaitServed(List.of(nodes.get(0), nodes.get(1)), load, cut);
            cluster.heal();
            cluster.awaitConverged();
            awaitDeposits(load, load.acknowledged() + 100);
            load.close();
            checkEveryAccount(load);
            assertThat(load.staleAnswers()).isEmpty();
        }
        assertThat(owners.overlaps()).as("entities that lived twice at once").isEmpty();
        assertThat(owners.objectOverlaps())
                .as("entities whose objects existed twice at once")
                .isEmpty();
    }

    /**
     * With the strategy off, the side cut off keeps serving the entities it hosts while the other side takes their
     * shards over: one entity lives on both sides, and the cut-off copy answers a balance the other side has moved
     * past. The store's coordinator lease (which the in-memory store holds, as the JDBC one does) still keeps the side
     * without it from placing new shards, so the overlap is made on purpose: a deposit through the majority to an
     * entity the cut-off node hosts, then a read of it through that node. After the heal the copy of the newest epoch
     * is the one that stays.
     */
    @Test
    void withTheStrategyOffBothSidesServeAndTheCheckerSeesTheOverlap() throws Exception {
        OwnerLog unsafe = new OwnerLog();
        try (PartitionCluster off = new PartitionCluster(
                new InMemoryShardingStore(),
                s -> s.withSplitBrain(s.splitBrain().withStrategy(dev.sharding.SplitBrainSettings.Strategy.OFF)),
                Ledger.type(unsafe))) {
            List<ShardingNode> nodes = off.startNodes(3);
            ShardingNode cutOff = nodes.get(2);
            ShardingNode majority = nodes.get(0);
            try (DepositLoad load = new DepositLoad(off::running, 30, 3)) {
                awaitDeposits(load, 200);
            }
            String id = cutOff.localRegion("ledger").entityIds().values().stream()
                    .flatMap(Collection::stream)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the load placed no entity on " + cutOff.nodeName()));
            long before = read(cutOff, id).balance();
            off.split(nodes.subList(0, 2), nodes.subList(2, 3));
            off.awaitView(nodes.subList(2, 3), SIDE_TIMEOUT);
            off.awaitView(nodes.subList(0, 2), SIDE_TIMEOUT);
            assertThat(cutOff.partitionedReason()).isNull();

            Ledger.Receipt deposited = Awaitility.await("a deposit to " + id + " through the majority")
                    .atMost(SIDE_TIMEOUT)
                    .ignoreExceptions()
                    .until(
                            () -> majority.region(Ledger.class)
                                    .ask(id, new Ledger.Deposit(1), Ledger.Receipt.class, Duration.ofSeconds(1))
                                    .get(5, TimeUnit.SECONDS),
                            r -> true);
            assertThat(deposited.node()).isNotEqualTo(cutOff.nodeName());
            assertThat(deposited.balance()).isEqualTo(before + 1);
            Ledger.Receipt stale = read(cutOff, id);
            assertThat(stale.node()).isEqualTo(cutOff.nodeName());
            assertThat(stale.balance()).as("the cut-off copy's balance").isEqualTo(before);
            assertThat(unsafe.overlaps()).anyMatch(o -> o.startsWith(id + ": "));

            // the merge keeps each shard where its epoch is newest and stops the other copy
            off.heal();
            off.awaitConverged();
            Awaitility.await("one copy of each entity after the merge")
                    .atMost(SIDE_TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        Map<String, Integer> copies = new HashMap<>();
                        for (ShardingNode n : off.running()) {
                            n.localRegion("ledger")
                                    .entityIds()
                                    .values()
                                    .forEach(ids -> ids.forEach(e -> copies.merge(e, 1, Integer::sum)));
                        }
                        return copies.values().stream().allMatch(c -> c == 1);
                    });
            for (ShardingNode n : off.running()) {
                Awaitility.await(id + " through " + n.nodeName() + " after the merge")
                        .atMost(SIDE_TIMEOUT)
                        .ignoreExceptions()
                        .until(() -> read(n, id).balance() == deposited.balance());
            }
        }
    }

    private static Ledger.Receipt read(ShardingNode via, String id) throws Exception {
        return via.region(Ledger.class)
                .ask(id, new Ledger.Read(), Ledger.Receipt.class, Duration.ofSeconds(2))
                .get(10, TimeUnit.SECONDS);
    }

    private void splitUnderLoad(List<ShardingNode> winners, List<ShardingNode> losers) throws Exception {
        try (DepositLoad load = new DepositLoad(cluster::running, 60, 4)) {
            awaitDeposits(load, 300);
            long cut = System.nanoTime();
            cluster.split(winners, losers);
            cluster.awaitView(losers, SIDE_TIMEOUT);
            Awaitility.await("the losing side stops serving")
                    .atMost(SIDE_TIMEOUT)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> losers.stream().allMatch(n -> n.partitionedReason() != null));
            for (ShardingNode loser : losers) {
                assertThat(loser.localRegion("ledger").entityIds())
                        .as("entities left on %s", loser.nodeName())
                        .isEmpty();
                assertThatThrownBy(() -> loser.region(Ledger.class)
                                .ask("x", new Ledger.Read(), Ledger.Receipt.class)
                                .get(5, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(ClusterPartitionedException.class);
            }
            cluster.awaitView(winners, SIDE_TIMEOUT);
            assertThat(winners)
                    .allSatisfy(n -> assertThat(n.partitionedReason()).isNull());
            awaitServed(winners, load, cut);
            long healed = System.nanoTime();
            cluster.heal();
            cluster.awaitConverged();
            System.out.printf(
                    "Merged %d ms after the heal; coordinator %s%n",
                    (System.nanoTime() - healed) / 1_000_000,
                    cluster.running().get(0).coordinator());
            awaitDeposits(load, load.acknowledged() + 100);
            load.close();
            checkEveryAccount(load);
            System.out.println("Failed deposits by cause: " + load.failures());
            assertThat(load.staleAnswers())
                    .as("answers below the acknowledged balance")
                    .isEmpty();
        }
        System.out.printf(
                "Shortest time from a copy's stop to the next copy's start on another node: %d ms%n",
                owners.shortestHandoverGapMillis());
        assertThat(owners.overlaps()).as("entities that lived twice at once").isEmpty();
        assertThat(owners.objectOverlaps())
                .as("entities whose objects existed twice at once")
                .isEmpty();
    }

    /** Waits until every account answered a deposit through the winning side, and prints how long that took. */
    private static void awaitServed(List<ShardingNode> winners, DepositLoad load, long cut) {
        ShardingNode via = winners.get(0);
        for (int i = 0; i < load.accounts(); i++) {
            String id = DepositLoad.id(i);
            Awaitility.await("account " + id + " served by the winning side")
                    .atMost(SIDE_TIMEOUT)
                    .pollInterval(Duration.ofMillis(10))
                    .ignoreExceptions()
                    .until(() -> via.region(Ledger.class)
                                    .ask(id, new Ledger.Read(), Ledger.Receipt.class, Duration.ofSeconds(1))
                                    .get(5, TimeUnit.SECONDS)
                            != null);
        }
        System.out.printf(
                "The winning side served every account %d ms after the cut%n", (System.nanoTime() - cut) / 1_000_000);
    }

    private static void awaitDeposits(DepositLoad load, long target) {
        load.awaitAcknowledged(target);
    }

    private static Map<String, String> homes(ShardingNode via, int accounts) throws Exception {
        Map<String, String> homes = new HashMap<>();
        for (int i = 0; i < accounts; i++) {
            String id = DepositLoad.id(i);
            homes.put(
                    id,
                    via.region(Ledger.class)
                            .ask(id, new Ledger.Read(), Ledger.Receipt.class)
                            .get(10, TimeUnit.SECONDS)
                            .node());
        }
        return homes;
    }

    /** Every node answers the same balance for every account, no less than acknowledged, no more than sent. */
    private void checkEveryAccount(DepositLoad load) throws Exception {
        load.checkEveryAccount(cluster.running());
    }
}
