package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardingNode;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.Counter;
import dev.sharding.test.PartitionCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node that starts alone, as a node restarted on a starved machine may (discovery found nobody within the join
 * timeout), forms a cluster of its own on the store the others use, finds their coordinator holding the store's
 * coordinator lease, and merges with them seconds later as the merged cluster's coordinator. Seen in a rolling restart
 * under load: the node still took the old holder for another cluster, refused every member's lease and its own, and
 * the whole cluster paused and then failed requests. It must run at once: every node keeps serving and no ask fails.
 */
class LoneStartMergeClusterTest {

    private static final int ENTITIES = 40;

    private final PartitionCluster cluster = new PartitionCluster(new InMemoryShardingStore(), s -> s, Counter.type());

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aNodeThatStartedAloneAndMergedAsTheCoordinatorServesAtOnceAndNoAskFails() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        for (int i = 0; i < ENTITIES; i++) {
            nodes.get(i % 2)
                    .region(Counter.class)
                    .ask("c-" + i, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
        }
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong answered = new AtomicLong();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        Thread load = new Thread(
                () -> {
                    for (int i = 0; running.get(); i++) {
                        ShardingNode via = nodes.get(i % 2);
                        String id = "c-" + (i % ENTITIES);
                        try {
                            via.region(Counter.class)
                                    .ask(id, new Counter.Add(1), Counter.Total.class)
                                    .get(15, TimeUnit.SECONDS);
                            answered.incrementAndGet();
                        } catch (Exception e) {
                            failures.add(id + " through " + via.nodeName() + ": " + e);
                        }
                    }
                },
                "lone-start-load");
        load.start();
        // the two nodes of the cluster must never stop serving: a lease the merged coordinator refuses pauses them
        Queue<String> pauses = new ConcurrentLinkedQueue<>();
        Thread watch = new Thread(
                () -> {
                    while (running.get()) {
                        for (ShardingNode n : nodes) {
                            if (!n.isServing()) {
                                pauses.add(n.nodeName() + " not serving (" + n.partitionedReason() + ")");
                            }
                        }
                        try {
                            TimeUnit.MILLISECONDS.sleep(5);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "lone-start-watch");
        watch.start();
        try {
            ShardingNode lone = cluster.startAloneThenMerge();
            assertThat(lone.coordinator())
                    .as("the node that started alone coordinates the merged cluster (the case under test)")
                    .isEqualTo(lone.self());
            List<ShardingNode> all = new ArrayList<>(nodes);
            all.add(lone);
            // a refused lease shows within one lease (2 s) of the merge, a node that lost it within a pause more
            Awaitility.await("every node serves, and goes on serving for a lease and a pause after the merge")
                    .atMost(Duration.ofSeconds(30))
                    .during(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> all.stream().allMatch(n -> n.isServing() && n.partitionedReason() == null));
            long before = answered.get();
            Awaitility.await("asks go on being answered")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> answered.get() > before + 100);
        } finally {
            running.set(false);
            load.join(TimeUnit.SECONDS.toMillis(30));
            watch.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(failures).as("asks that failed through the merge").isEmpty();
        assertThat(pauses.stream().distinct().toList())
                .as("moments the nodes that had formed the cluster did not serve")
                .isEmpty();
        for (int i = 0; i < ENTITIES; i++) {
            assertThat(Counter.LIVE
                            .getOrDefault("c-" + i, new java.util.concurrent.atomic.AtomicInteger())
                            .get())
                    .as("live instances of c-%d", i)
                    .isLessThanOrEqualTo(1);
        }
    }
}
