package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.Counter;
import dev.sharding.test.ForwardingStore;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's node crashes while messages flow: shards whose homes are known keep working and lose nothing;
 * requests for new shards made during the failover wait in region buffers and are answered once the next oldest
 * member's coordinator has rebuilt its table.
 */
class CoordinatorCrashClusterTest {

    private final InMemoryShardingStore shared = new InMemoryShardingStore();

    /** Shard checks against the store left to fail; a check is made when a lapsed lease comes back. */
    private final AtomicInteger epochChecksToFail = new AtomicInteger();

    private final TestCluster cluster = new TestCluster(settings -> ShardingNode.builder(settings)
            .entityType(Counter.type())
            .store(new ForwardingStore(shared) {
                @Override
                public CompletableFuture<Map<Integer, Long>> currentEpochs(String typeName) {
                    return epochChecksToFail.getAndDecrement() > 0
                            ? CompletableFuture.failedFuture(new IllegalStateException("database failing over"))
                            : super.currentEpochs(typeName);
                }
            }));

    @AfterEach
    void stop() {
        cluster.close();
    }

    /**
     * Reads an entity, asking again while its node refuses the answer: when the crash is detected only after n2's
     * lease from the dead coordinator ran out (a loaded machine), an answer made in that gap is withheld with a
     * {@link ClusterPartitionedException}, which a client of a read asks again after.
     */
    private static Counter.Total read(ShardRegion<Counter> region, String id) {
        AtomicReference<Counter.Total> read = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    try {
                        read.set(region.ask(id, new Counter.Get(), Counter.Total.class, Duration.ofSeconds(30))
                                .join());
                        return true;
                    } catch (CompletionException e) {
                        if (e.getCause() instanceof ClusterPartitionedException) {
                            return false;
                        }
                        throw e;
                    }
                });
        return read.get();
    }

    @Test
    void knownShardsLoseNothingAndNewShardsAreServedAfterFailover() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode coordinator = nodes.get(0);
        ShardingNode n2 = nodes.get(1);
        ShardingNode n3 = nodes.get(2);
        assertThat(cluster.coordinatorNode()).isSameAs(coordinator);

        // entities homed on the survivors, with homes known to n2; keep half the shards unallocated
        int shards = 20;
        List<String> known = new ArrayList<>();
        Set<Integer> usedShards = new HashSet<>();
        for (int i = 0; known.size() < 12; i++) {
            String id = "k-" + i;
            int shard = EntityType.shardOf(id, shards);
            if (shard >= shards / 2) {
                continue;
            }
            Counter.Total t = n2.region(Counter.class)
                    .ask(id, new Counter.Get(), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            usedShards.add(shard);
            if (!t.node().equals(coordinator.nodeName())) {
                known.add(id);
            }
        }

        // steady tells from n2 to the known entities while the coordinator crashes; every 1,000 rounds an ask to each
        // waits for them, so that no mailbox of a pausing node fills up (a full one drops tells, by design)
        AtomicBoolean sending = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        ShardRegion<Counter> region = n2.region(Counter.class);
        CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
            while (sending.get()) {
                for (String id : known) {
                    region.tell(id, new Counter.Add(1));
                }
                if (sent.incrementAndGet() % 1_000 == 0) {
                    known.forEach(id -> read(region, id));
                }
            }
        });

        cluster.awaitStable(); // a member lost right after a join cannot be told from a split

        coordinator.crash();
        // asks for shards nobody allocated yet, made while the view still shows the dead coordinator
        List<CompletableFuture<Counter.Total>> fresh = new ArrayList<>();
        List<String> freshIds = new ArrayList<>();
        for (int i = 0; freshIds.size() < 10; i++) {
            String id = "new-" + i;
            if (usedShards.contains(EntityType.shardOf(id, shards))) {
                continue;
            }
            freshIds.add(id);
            fresh.add(
                    n3.region(Counter.class).ask(id, new Counter.Add(7), Counter.Total.class, Duration.ofSeconds(30)));
        }
        cluster.awaitConverged();
        assertThat(cluster.coordinatorNode()).isSameAs(n2);
        sending.set(false);
        load.get(30, TimeUnit.SECONDS);

        for (String id : known) {
            Counter.Total t =
                    region.ask(id, new Counter.Get(), Counter.Total.class).get(10, TimeUnit.SECONDS);
            assertThat(t.total()).as("tells to %s, homed on %s", id, t.node()).isEqualTo(sent.get());
        }
        for (int i = 0; i < fresh.size(); i++) {
            Counter.Total t = fresh.get(i).get(30, TimeUnit.SECONDS);
            assertThat(t.total()).as(freshIds.get(i)).isEqualTo(7);
            assertThat(t.node()).isIn(n2.nodeName(), n3.nodeName());
        }
        // the new coordinator rebuilt the table from the regions: known homes did not move
        for (String id : known) {
            Counter.Total viaN3 = n3.region(Counter.class)
                    .ask(id, new Counter.Get(), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            Counter.Total viaN2 =
                    region.ask(id, new Counter.Get(), Counter.Total.class).get(10, TimeUnit.SECONDS);
            assertThat(viaN3.node()).isEqualTo(viaN2.node());
            assertThat(viaN3.total()).isEqualTo(sent.get());
        }
    }

    /**
     * The survivors' leases lapse while the coordinator's failure is detected (their lease is made shorter than the
     * detection); when the new coordinator's lease comes,
     * each checks its shards against the store before serving. The store fails those checks for a while (as a
     * database failing over does, often for the same reason the coordinator died): the checks are tried again and the
     * entities, kept in memory, serve on with their state instead of every shard being dropped and restarted.
     */
    @Test
    void shardsKeptThroughTheLapseStayWhenTheStoreFailsTheirCheckForAWhile() throws Exception {
        // a lease shorter than the in-JVM stack's failure detection (1.8 s): the survivors' leases surely lapse
        List<ShardingNode> nodes =
                cluster.startNodes(3, s -> s.withSplitBrain(s.splitBrain().withLeaseDuration(Duration.ofSeconds(1))));
        ShardingNode coordinator = nodes.get(0);
        ShardingNode n2 = nodes.get(1);
        List<String> kept = new ArrayList<>();
        for (int i = 0; kept.size() < 10; i++) {
            Counter.Total t = n2.region(Counter.class)
                    .ask("kept-" + i, new Counter.Add(5), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            if (!t.node().equals(coordinator.nodeName())) {
                kept.add("kept-" + i);
            }
        }
        cluster.awaitStable();

        epochChecksToFail.set(6);
        coordinator.crash();
        cluster.awaitConverged();

        for (String id : kept) {
            Counter.Total t = n2.region(Counter.class)
                    .ask(id, new Counter.Get(), Counter.Total.class, Duration.ofSeconds(20))
                    .get(30, TimeUnit.SECONDS);
            assertThat(t.total())
                    .as("%s on %s kept its state through the failed checks", id, t.node())
                    .isEqualTo(5);
        }
        assertThat(epochChecksToFail.get())
                .as("the survivors checked their shards and the store failed the checks")
                .isNegative();
    }
}
