package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityTypeSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Remembered entities start again without a message wherever their shard starts: after the crash of their node,
 * and after a restart of the whole cluster. An entity that passivated itself is forgotten.
 */
class RememberEntitiesClusterTest {

    private static final List<String> IDS =
            IntStream.range(0, 20).mapToObj(i -> "r-" + i).toList();

    private final ControllableStore store = new ControllableStore();

    private TestCluster cluster = newCluster();

    private TestCluster newCluster() {
        return newCluster(java.util.function.UnaryOperator.identity());
    }

    private TestCluster newCluster(java.util.function.UnaryOperator<ShardingSettings> change) {
        return new TestCluster(s -> ShardingNode.builder(change.apply(s.withEntity(
                        "wallet",
                        EntityTypeSettings.builder().rememberEntities(true).build())))
                .entityType(Wallet.type())
                .store(store));
    }

    /** Remembered ids are written at the retry interval: an hour makes sure no periodic write happens in a test. */
    private static ShardingSettings noPeriodicFlush(ShardingSettings s) {
        return s.withRetryInterval(Duration.ofHours(1));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static Set<String> live(List<ShardingNode> nodes) {
        Set<String> ids = new HashSet<>();
        for (ShardingNode n : nodes) {
            if (n.isRunning()) {
                n.localRegion("wallet").entityIds().values().forEach(ids::addAll);
            }
        }
        return ids;
    }

    @Test
    void theEntitiesOfACrashedNodeStartAgainOnTheSurvivorsWithoutAMessage() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        for (String id : IDS) {
            nodes.get(0)
                    .region(Wallet.class)
                    .ask(id, new Wallet.Deposit(2), Wallet.Reply.class)
                    .get(10, TimeUnit.SECONDS);
        }
        ShardingNode victim = nodes.get(2);
        Set<String> onVictim = victim.localRegion("wallet").entityIds().values().stream()
                .flatMap(List::stream)
                .collect(Collectors.toSet());
        assertThat(onVictim).isNotEmpty();
        // the ids were stored: wait until a flush has happened (they are read back from the store below)
        Awaitility.await("remembered ids stored")
                .atMost(Duration.ofSeconds(10))
                .until(() -> IDS.stream()
                        .allMatch(id -> store.remembered("wallet", dev.sharding.EntityType.shardOf(id, 12))
                                .join()
                                .contains(id)));
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split
        victim.crash();
        cluster.awaitConverged();
        Awaitility.await("every remembered entity alive again on the survivors, with no message sent")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(cluster.running()).containsAll(IDS));
        for (String id : onVictim) {
            assertThat(cluster.running()
                            .get(0)
                            .region(Wallet.class)
                            .ask(id, new Wallet.Read(), Wallet.Reply.class)
                            .get(10, TimeUnit.SECONDS)
                            .amount())
                    .isEqualTo(2);
        }
    }

    @Test
    void entitiesStartedJustBeforeAGracefulStopAreRememberedAfterTheRestart() throws Exception {
        cluster.close();
        cluster = newCluster(RememberEntitiesClusterTest::noPeriodicFlush);
        ShardingNode node = cluster.startNode();
        for (String id : IDS) {
            node.region(Wallet.class)
                    .ask(id, new Wallet.Deposit(3), Wallet.Reply.class)
                    .get(10, TimeUnit.SECONDS);
        }
        cluster.close(); // the ids were not written yet: the stop writes them

        cluster = newCluster();
        List<ShardingNode> restarted = cluster.startNodes(1);
        Awaitility.await("remembered entities started after the restart, without a message")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(restarted).containsAll(IDS));
    }

    @Test
    void entitiesStartedJustBeforeAHandoffStartAtTheNewHomeWithoutAMessage() throws Exception {
        cluster.close();
        cluster = newCluster(RememberEntitiesClusterTest::noPeriodicFlush);
        ShardingNode stays = cluster.startNode();
        ShardingNode leaves = cluster.startNode();
        cluster.awaitConverged();
        for (String id : IDS) {
            stays.region(Wallet.class)
                    .ask(id, new Wallet.Deposit(4), Wallet.Reply.class)
                    .get(10, TimeUnit.SECONDS);
        }
        Set<String> onLeaving = leaves.localRegion("wallet").entityIds().values().stream()
                .flatMap(List::stream)
                .collect(Collectors.toSet());
        assertThat(onLeaving).isNotEmpty();
        // a graceful leave hands every shard to the node that stays; the ids were not written yet: the handoff
        // writes them before the shard starts at its new home, which reads them there
        Thread leaving = new Thread(leaves::close);
        leaving.start();
        Awaitility.await("the leaving node's entities alive on the node that stays, with no message sent")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(List.of(stays)).containsAll(onLeaving));
        leaving.join(30_000);
    }

    @Test
    void afterAFullRestartRememberedEntitiesStartAndPassivatedOnesDoNot() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        for (String id : IDS) {
            nodes.get(1)
                    .region(Wallet.class)
                    .ask(id, new Wallet.Deposit(5), Wallet.Reply.class)
                    .get(10, TimeUnit.SECONDS);
        }
        nodes.get(1)
                .region(Wallet.class)
                .ask("r-0", new Wallet.Rest(), Wallet.Reply.class)
                .get(10, TimeUnit.SECONDS);
        Awaitility.await("r-0 forgotten, the others remembered")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !store.remembered("wallet", dev.sharding.EntityType.shardOf("r-0", 12))
                                .join()
                                .contains("r-0")
                        && IDS.stream()
                                .skip(1)
                                .allMatch(id -> store.remembered("wallet", dev.sharding.EntityType.shardOf(id, 12))
                                        .join()
                                        .contains(id)));
        cluster.close();

        cluster = newCluster();
        List<ShardingNode> restarted = cluster.startNodes(2);
        Awaitility.await("remembered entities started after the restart, without a message")
                .atMost(Duration.ofSeconds(30))
                .until(() -> live(restarted).containsAll(IDS.subList(1, IDS.size())));
        assertThat(live(restarted)).doesNotContain("r-0");
        assertThat(restarted
                        .get(0)
                        .region(Wallet.class)
                        .ask("r-7", new Wallet.Read(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(5);
    }
}
