package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AdminResult;
import dev.sharding.EntityType;
import dev.sharding.ShardingNode;
import dev.sharding.test.Journal;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A failure in the middle of a handoff: the owner crashes while its entities stop, or another region crashes before
 * acknowledging. The handoff completes anyway, and the messages the surviving regions buffered reach the new home.
 */
class HandOffFailureClusterTest {

    private static final int SHARD = 7;

    /** Ids of one shard only, so that the crash of its owner loses nothing once it has stopped its entities. */
    private static final List<String> IDS = IntStream.range(0, 2000)
            .mapToObj(i -> "h-" + i)
            .filter(id -> EntityType.shardOf(id, 30) == SHARD)
            .limit(8)
            .toList();

    private final TestCluster cluster = TestCluster.of(Journal.type());

    private final LoadDriver load = new LoadDriver(IDS);

    @BeforeEach
    void reset() {
        Journal.reset();
    }

    @AfterEach
    void stop() {
        CountDownLatch gate = Journal.stopGate;
        if (gate != null) {
            gate.countDown();
        }
        load.close();
        cluster.close();
    }

    private ShardingNode owner(List<ShardingNode> nodes) {
        return nodes.stream()
                .filter(n ->
                        n.isRunning() && n.localRegion("journal").entityIds().containsKey(SHARD))
                .findFirst()
                .orElse(null);
    }

    @Test
    void theOwnerCrashesWhileItsEntitiesStop() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode n1 = nodes.get(0);
        ShardingNode target = nodes.get(1);
        // put the shard on n3, not the coordinator
        n1.region(Journal.class)
                .ask(
                        IDS.get(0),
                        new dev.sharding.test.SequenceChecker.GetReport(),
                        dev.sharding.test.SequenceChecker.Report.class)
                .get(10, TimeUnit.SECONDS);
        ShardingNode victim = nodes.get(2);
        // the coordinator records the shard's home once ShardStarted is in, which may follow the first reply
        Awaitility.await("shard on n3")
                .atMost(Duration.ofSeconds(30))
                .until(() -> owner(nodes) == victim
                        || n1.admin()
                                        .handOff("journal", SHARD, victim.nodeName())
                                        .get(10, TimeUnit.SECONDS)
                                        .accepted()
                                && owner(nodes) == victim);
        Awaitility.await("shard on n3").atMost(Duration.ofSeconds(30)).until(() -> owner(nodes) == victim);
        load.start("via-n1", n1.region(Journal.class));
        load.start("via-n2", target.region(Journal.class));
        load.awaitProgress(20);

        Journal.stopGate = new CountDownLatch(1);
        AdminResult r = n1.admin().handOff("journal", SHARD, target.nodeName()).get(10, TimeUnit.SECONDS);
        assertThat(r.accepted()).as(r.message()).isTrue();
        Awaitility.await("handoff held while the owner's entities stop")
                .atMost(Duration.ofSeconds(30))
                .until(() -> !n1.admin()
                                .clusterState(Duration.ofSeconds(2))
                                .get(5, TimeUnit.SECONDS)
                                .handoffs()
                                .isEmpty()
                        && victim.localRegion("journal").entityIds().containsKey(SHARD));
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split
        victim.crash();
        Journal.stopGate.countDown();
        cluster.awaitConverged();
        Awaitility.await("shard allocated anew").atMost(Duration.ofSeconds(30)).until(() -> owner(nodes) != null);
        load.awaitProgress(20);
        load.assertOnlyTheCrashedMailboxesLost();
    }

    @Test
    void aRegionCrashesBeforeAcknowledging() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3, s -> s.withHandoffTimeout(Duration.ofMinutes(5)));
        ShardingNode n1 = nodes.get(0);
        load.start("via-n1", n1.region(Journal.class));
        load.awaitProgress(20);
        ShardingNode from = owner(nodes);
        // crash neither the owner nor n1 (the coordinator, through which the load goes); move to the third node
        ShardingNode crashed =
                nodes.stream().filter(n -> n != from && n != n1).findFirst().orElseThrow();
        ShardingNode to = nodes.stream()
                .filter(n -> n != from && n != crashed)
                .findFirst()
                .orElseThrow();
        String targetName = to.nodeName();
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split
        crashed.crash();
        AdminResult r = n1.admin().handOff("journal", SHARD, targetName).get(10, TimeUnit.SECONDS);
        assertThat(r.accepted()).as(r.message()).isTrue();

        Awaitility.await("handoff completes without the crashed region's acknowledgement, well before the"
                        + " five-minute handoff-timeout")
                .atMost(Duration.ofSeconds(30))
                .until(() -> to.localRegion("journal").entityIds().containsKey(SHARD));
        load.awaitProgress(20);
        load.assertNothingLost();
    }
}
