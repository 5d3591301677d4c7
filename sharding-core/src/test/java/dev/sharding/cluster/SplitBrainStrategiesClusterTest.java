package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import dev.sharding.SplitBrainSettings;
import dev.sharding.SplitBrainSettings.Strategy;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.DepositLoad;
import dev.sharding.test.Ledger;
import dev.sharding.test.OwnerLog;
import dev.sharding.test.PartitionCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every strategy on the split it must decide: the side it keeps serves every account again, the other stops, no
 * entity lives twice, and the time from the cut until the kept side served every account is printed per strategy.
 */
class SplitBrainStrategiesClusterTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static UnaryOperator<dev.sharding.ShardingSettings> strategy(Strategy strategy, int quorum) {
        return s -> s.withSplitBrain(s.splitBrain().withStrategy(strategy).withQuorumSize(quorum));
    }

    /** A 2|1 split with the oldest member on the bigger side: every strategy keeps the bigger side. */
    @ParameterizedTest
    @EnumSource(
            value = Strategy.class,
            names = {"KEEP_MAJORITY", "STATIC_QUORUM", "KEEP_OLDEST", "STORE_LEASE"})
    void eachStrategyKeepsTheSideItMustAndStopsTheOther(Strategy strategy) throws Exception {
        OwnerLog owners = new OwnerLog();
        try (PartitionCluster cluster = new PartitionCluster(
                new InMemoryShardingStore(),
                strategy(strategy, strategy == Strategy.STATIC_QUORUM ? 2 : 0),
                Ledger.type(owners))) {
            List<ShardingNode> nodes = cluster.startNodes(3);
            split(cluster, strategy, nodes.subList(0, 2), nodes.subList(2, 3));
        }
        System.out.printf(
                "Strategy %s: objects of a stopped side alive after the new copy started: %d%n",
                strategy, owners.objectOverlaps().size());
        assertThat(owners.overlaps()).isEmpty();
        if (strategy != Strategy.STORE_LEASE) {
            // the losing side knows it lost from its view and stops its entities at once
            assertThat(owners.objectOverlaps()).isEmpty();
        }
    }

    /** Two nodes: with store-lease, the side whose coordinator holds the store's lease runs on. */
    @Test
    void storeLeaseKeepsOneOfTwoNodes() throws Exception {
        OwnerLog owners = new OwnerLog();
        try (PartitionCluster cluster = new PartitionCluster(
                new InMemoryShardingStore(), strategy(Strategy.STORE_LEASE, 0), Ledger.type(owners))) {
            List<ShardingNode> nodes = cluster.startNodes(2);
            split(cluster, Strategy.STORE_LEASE, nodes.subList(0, 1), nodes.subList(1, 2));
        }
        assertThat(owners.overlaps()).isEmpty();
    }

    private static void split(
            PartitionCluster cluster, Strategy strategy, List<ShardingNode> kept, List<ShardingNode> lost)
            throws Exception {
        try (DepositLoad load = new DepositLoad(() -> kept, 40, 3)) {
            Awaitility.await().atMost(TIMEOUT).until(() -> load.acknowledged() > 200);
            long cut = System.nanoTime();
            cluster.split(kept, lost);
            Awaitility.await("the other side stops")
                    .atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> lost.stream().allMatch(n -> n.partitionedReason() != null));
            long stopped = System.nanoTime();
            ShardingNode via = kept.get(0);
            for (int i = 0; i < load.accounts(); i++) {
                String id = DepositLoad.id(i);
                Awaitility.await(id + " served")
                        .atMost(TIMEOUT)
                        .pollInterval(Duration.ofMillis(10))
                        .ignoreExceptions()
                        .until(() -> via.region(Ledger.class)
                                        .ask(id, new Ledger.Read(), Ledger.Receipt.class, Duration.ofSeconds(1))
                                        .get(5, TimeUnit.SECONDS)
                                != null);
            }
            System.out.printf(
                    "Strategy %s: the other side stopped %d ms after the cut; the kept side served every"
                            + " account %d ms after the cut%n",
                    SplitBrainSettings.DEFAULT.withStrategy(strategy).strategy(),
                    (stopped - cut) / 1_000_000,
                    (System.nanoTime() - cut) / 1_000_000);
            assertThat(kept).allSatisfy(n -> assertThat(n.partitionedReason()).isNull());
            assertThat(load.staleAnswers()).isEmpty();
        }
    }
}
