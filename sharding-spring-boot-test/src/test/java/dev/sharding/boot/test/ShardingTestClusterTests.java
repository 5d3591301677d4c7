package dev.sharding.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.boot.test.counter.Counter;
import dev.sharding.boot.test.counter.CounterApplication;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The multi-node builder on a small application: nodes form one cluster; a killed node's entity starts again on a
 * survivor; a stopped node hands its shards off; a partition leaves each side with a view of its own and the heal
 * merges them; a member that another cannot hear (one direction of a link lost) is removed; the owner check finds an entity alive on both sides when no split-brain strategy stops one, and none
 * otherwise.
 */
class ShardingTestClusterTests {

    private static long add(ShardingTestNode node, String id, long amount) throws Exception {
        return node.region(Counter.class)
                .ask(id, new Counter.Add(amount), Counter.Total.class)
                .get(30, TimeUnit.SECONDS)
                .total();
    }

    /** Logs no ERROR either: a crash the test kit makes on purpose is no error (it once logged a refused task). */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aKilledNodesEntityStartsAgainOnASurvivorAndAStoppedNodeHandsOff(CapturedOutput output) throws Exception {
        try (ShardingTestCluster cluster =
                        ShardingTestCluster.of(CounterApplication.class).start(3);
                OwnerWatch watch = cluster.watchOwners()) {
            assertThat(cluster.running()).hasSize(3);
            for (ShardingTestNode node : cluster.running()) {
                assertThat(node.node().members()).hasSize(3);
            }
            assertThat(add(cluster.node(1), "moving", 2)).isEqualTo(2);
            ShardingTestNode owner = cluster.awaitEntityStarted("counter", "moving");

            cluster.kill(owner);
            assertThat(owner.isRunning()).isFalse();
            // stable, not only installed: the survivors' view must outlast the stable-after before the next change,
            // or the last one left could not tell the graceful stop below from a partition
            cluster.awaitStable();
            ShardingTestNode survivor = cluster.running().get(0);
            // the in-memory store kept nothing: the entity starts again from zero on a survivor
            Awaitility.await("the entity answers again after the kill")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> add(survivor, "moving", 1) == 1);
            ShardingTestNode next = cluster.awaitEntityStarted("counter", "moving");
            assertThat(next).isNotSameAs(owner);

            cluster.stop(next);
            cluster.awaitView();
            ShardingTestNode last = cluster.running().get(0);
            assertThat(cluster.running()).containsExactly(last);
            Awaitility.await("the entity answers after the graceful stop")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> add(last, "moving", 1) >= 1);
            assertThat(cluster.owners().entities()).isPositive();
            assertThat(cluster.owners().isExclusive()).isTrue();
            assertThat(watch.checks()).isPositive();
            assertThat(watch.violations()).isEmpty();
        }
        assertThat(output.getOut()).as("the nodes' log, captured").contains("joined cluster");
        assertThat(output.getOut().lines().filter(line -> line.contains(" ERROR ")))
                .as("ERRORs logged")
                .isEmpty();
    }

    @Test
    void aPartitionLeavesEachSideItsOwnViewAndTheHealMergesThem() throws Exception {
        try (ShardingTestCluster cluster =
                ShardingTestCluster.of(CounterApplication.class).start(3)) {
            List<ShardingTestNode> majority = List.of(cluster.node(1), cluster.node(2));
            List<ShardingTestNode> minority = List.of(cluster.node(3));
            assertThat(add(cluster.node(1), "p", 1)).isEqualTo(1);

            cluster.network().partition(majority, minority);
            cluster.awaitView(majority);
            cluster.awaitView(minority);
            assertThat(cluster.owners().isExclusive()).isTrue();

            cluster.network().heal();
            cluster.awaitView();
            assertThat(cluster.running()).hasSize(3);
            assertThat(cluster.owners().isExclusive()).isTrue();
        }
    }

    @Test
    void aMemberThatAnotherCannotHearIsRemovedAndComesBackAfterTheHeal() throws Exception {
        try (ShardingTestCluster cluster =
                        ShardingTestCluster.of(CounterApplication.class).start(3);
                OwnerWatch watch = cluster.watchOwners()) {
            ShardingTestNode coordinator = cluster.node(1);
            ShardingTestNode unheard = cluster.node(2);
            ShardingTestNode deaf = cluster.node(3);
            assertThat(add(coordinator, "one-way", 1)).isEqualTo(1);

            cluster.network().cutOneWay(unheard, deaf);
            // the coordinator still hears both: only the report of the node that cannot hear removes the other
            cluster.awaitView(List.of(coordinator, deaf));
            Awaitility.await("the entity answers on the members left")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> add(deaf, "one-way", 1) >= 1);

            cluster.network().heal();
            cluster.awaitView();
            assertThat(cluster.running()).hasSize(3);
            assertThat(watch.violations()).isEmpty();
            assertThat(cluster.owners().isExclusive()).isTrue();
        }
    }

    @Test
    void theOwnerCheckFindsAnEntityAliveOnBothSidesWhenNothingStopsOne() throws Exception {
        try (ShardingTestCluster cluster = ShardingTestCluster.of(CounterApplication.class)
                .properties("sharding.split-brain.strategy=off")
                .start(2)) {
            ShardingTestNode a = cluster.node(1);
            ShardingTestNode b = cluster.node(2);
            assertThat(add(a, "twice", 1)).isEqualTo(1);
            assertThat(cluster.owners().isExclusive()).isTrue();

            cluster.network().partition(List.of(a), List.of(b));
            cluster.awaitView(List.of(a));
            cluster.awaitView(List.of(b));
            // each side takes the other's shards for its own: the entity starts on the side that lacked it
            Awaitility.await("the entity alive on both sides")
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> {
                        add(a, "twice", 1);
                        add(b, "twice", 1);
                        return !cluster.owners().isExclusive();
                    });
            assertThat(cluster.owners().duplicates()).containsEntry("counter/twice", List.of(a.name(), b.name()));
        }
    }

    @Test
    void badInputIsRefusedWithAClearError() {
        assertThatThrownBy(
                        () -> ShardingTestCluster.of(CounterApplication.class).start(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one node");
        assertThatThrownBy(
                        () -> ShardingTestCluster.of(CounterApplication.class).properties("no-equals"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=value");
        assertThatThrownBy(() -> ShardingTestCluster.of())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("application's class");
    }
}
