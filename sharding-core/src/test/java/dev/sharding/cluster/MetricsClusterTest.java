package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AskTimeoutException;
import dev.sharding.BufferFullException;
import dev.sharding.EntityException;
import dev.sharding.EntityUnreachableException;
import dev.sharding.MemberSettings;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.UnhandledMessageException;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.EntityTypeMetrics.DropReason;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a node tells its {@link ShardingMetrics}: every ask once with how it ended and whether it crossed the network,
 * tells and the tells it dropped with why, passivations, handoffs on the shard's old owner, rebalance rounds on the
 * coordinator's node, state writes and the store's transactions.
 */
class MetricsClusterTest {

    /** Counts what it is told, per node, by a key naming the call and its arguments. */
    static final class Recording implements ShardingMetrics {

        final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

        final Map<String, LongAdder> nanos = new ConcurrentHashMap<>();

        void add(String key, long n) {
            counts.computeIfAbsent(key, k -> new LongAdder()).add(n);
        }

        long count(String key) {
            LongAdder a = counts.get(key);
            return a == null ? 0 : a.sum();
        }

        long asks(String type, AskOutcome outcome, boolean remote) {
            return count(type + ".ask." + outcome + "." + remote);
        }

        @Override
        public EntityTypeMetrics entityType(String typeName) {
            return new EntityTypeMetrics() {
                @Override
                public void askCompleted(AskOutcome outcome, boolean remote, long n) {
                    assertThat(n).isNotNegative();
                    add(typeName + ".ask." + outcome + "." + remote, 1);
                }

                @Override
                public void told() {
                    add(typeName + ".tell", 1);
                }

                @Override
                public void dropped(DropReason reason) {
                    add(typeName + ".dropped." + reason, 1);
                }

                @Override
                public void passivated() {
                    add(typeName + ".passivated", 1);
                }

                @Override
                public void handedOff(long n) {
                    add(typeName + ".handoff", 1);
                }

                @Override
                public void stateWritten(long n, boolean succeeded) {
                    add(typeName + ".write." + succeeded, 1);
                }
            };
        }

        @Override
        public void rebalanceRound() {
            add("rebalance", 1);
        }

        @Override
        public void storeBatch(int writes) {
            add("batches", 1);
            add("batched", writes);
        }
    }

    private final Map<String, Recording> recordings = new ConcurrentHashMap<>();

    private TestCluster cluster = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Counter.type()).metrics(recording(s)));

    private Recording recording(ShardingSettings settings) {
        Recording r = new Recording();
        recordings.put(String.valueOf(settings.nodeName()), r);
        return r;
    }

    private Recording of(ShardingNode node) {
        return recordings.get(node.nodeName());
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static Throwable failure(CompletableFuture<?> ask) {
        try {
            ask.get(30, TimeUnit.SECONDS);
            throw new AssertionError("the ask succeeded");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void everyAskIsRecordedOnceOnItsCallersNodeAsLocalOrRemote() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode a = nodes.get(0);
        ShardingNode b = nodes.get(1);
        ShardRegion<Counter> counters = a.region(Counter.class);
        List<String> ids = IntStream.range(0, 60).mapToObj(i -> "c" + i).toList();
        List<CompletableFuture<Counter.Total>> asks = new ArrayList<>();
        for (String id : ids) {
            asks.add(counters.ask(id, new Counter.Add(1), Counter.Total.class));
        }
        long onB = 0;
        for (CompletableFuture<Counter.Total> ask : asks) {
            if (ask.get(30, TimeUnit.SECONDS).node().equals(b.nodeName())) {
                onB++;
            }
        }
        assertThat(onB).as("the ids spread over both nodes").isBetween(1L, 59L);
        assertThat(of(a).asks("counter", AskOutcome.SUCCESS, true)).isEqualTo(onB);
        assertThat(of(a).asks("counter", AskOutcome.SUCCESS, false)).isEqualTo(ids.size() - onB);
        assertThat(of(b).counts).as("node b asked nothing").doesNotContainKeys("counter.ask.SUCCESS.true");
        assertThat(of(b).asks("counter", AskOutcome.SUCCESS, false)).isZero();

        counters.tell("c1", new Counter.Add(1));
        counters.tell("c2", new Counter.Add(1));
        assertThat(of(a).count("counter.tell")).isEqualTo(2);
        assertThat(a.localRegion("counter").activeEntities()
                        + b.localRegion("counter").activeEntities())
                .isEqualTo(ids.size());
        assertThat(a.localRegion("counter").hostedShards()
                        + b.localRegion("counter").hostedShards())
                .isEqualTo(20);
        assertThat(a.localRegion("counter").bufferedMessages()).isZero();
    }

    @Test
    void failedRejectedTimedOutAndUnreachableAsksAreRecordedWithTheirOutcome() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode a = nodes.get(0);
        ShardingNode b = nodes.get(1);
        ShardRegion<Counter> counters = a.region(Counter.class);
        String onB = IntStream.range(0, 200)
                .mapToObj(i -> "x" + i)
                .filter(id -> counters.ask(id, new Counter.Get(), Counter.Total.class)
                        .join()
                        .node()
                        .equals(b.nodeName()))
                .findFirst()
                .orElseThrow();
        long successes =
                of(a).asks("counter", AskOutcome.SUCCESS, true) + of(a).asks("counter", AskOutcome.SUCCESS, false);

        assertThat(failure(counters.ask(onB, new Counter.Fail("no"), Counter.Total.class)))
                .isInstanceOf(EntityException.class);
        Awaitility.await().until(() -> of(a).asks("counter", AskOutcome.FAILED, true) == 1);

        assertThat(failure(counters.ask(onB, "not a counter message", Counter.Total.class)))
                .isInstanceOf(UnhandledMessageException.class);
        assertThat(of(a).asks("counter", AskOutcome.REJECTED, false))
                .as("refused on the caller's node before any send")
                .isEqualTo(1);

        assertThat(failure(
                        counters.ask(onB, new Counter.AddLater(1, 3_000), Counter.Total.class, Duration.ofMillis(200))))
                .isInstanceOf(AskTimeoutException.class);
        assertThat(of(a).asks("counter", AskOutcome.TIMEOUT, true)).isEqualTo(1);

        CompletableFuture<Counter.Total> lost =
                counters.ask(onB, new Counter.AddLater(1, 60_000), Counter.Total.class, Duration.ofSeconds(60));
        Awaitility.await("the ask reached node b")
                .until(() -> !b.localRegion("counter").entityIds().isEmpty());
        b.crash();
        assertThat(failure(lost)).isInstanceOf(EntityUnreachableException.class);
        assertThat(of(a).asks("counter", AskOutcome.UNREACHABLE, true)).isEqualTo(1);

        assertThat(of(a).asks("counter", AskOutcome.SUCCESS, true) + of(a).asks("counter", AskOutcome.SUCCESS, false))
                .as("none of the failed asks counted as a success")
                .isEqualTo(successes);
    }

    @Test
    void tellsDroppedForAFullBufferAndAtStopAreCountedWithTheirReason() {
        // two members needed before any shard is placed: with one, every message waits in the buffer
        ShardingNode alone =
                cluster.startNode(s -> s.withBufferSize(3).withMember(MemberSettings.DEFAULT.withMinNrOfMembers(2)));
        ShardRegion<Counter> counters = alone.region(Counter.class);
        for (int i = 0; i < 3; i++) {
            counters.tell("t" + i, new Counter.Add(1));
        }
        assertThatThrownBy(() -> counters.tell("t3", new Counter.Add(1))).isInstanceOf(BufferFullException.class);
        Recording r = of(alone);
        assertThat(r.count("counter.tell")).isEqualTo(3);
        assertThat(r.count("counter.dropped." + DropReason.BUFFER_FULL)).isEqualTo(1);
        assertThat(alone.localRegion("counter").bufferedMessages()).isEqualTo(3);

        cluster.close();
        assertThat(r.count("counter.dropped." + DropReason.STOPPED))
                .as("the buffered tells, dropped when the node stopped")
                .isEqualTo(3);
    }

    @Test
    void passivationsAndTheHandoffsAndRoundOfARebalanceAreRecorded() throws Exception {
        UnaryOperator<ShardingSettings> quick = s -> s.withRebalance(
                s.rebalance().withStableAfter(Duration.ofMillis(200)).withInterval(Duration.ofMillis(500)));
        ShardingNode a = cluster.startNode(quick);
        ShardRegion<Counter> counters = a.region(Counter.class);
        for (int i = 0; i < 40; i++) {
            counters.ask("p" + i, new Counter.Add(1), Counter.Total.class).get(30, TimeUnit.SECONDS);
        }
        assertThat(a.localRegion("counter").hostedShards()).isEqualTo(20);

        a.localRegion("counter").changePassivation(null, 30);
        Awaitility.await("entities over the limit passivated")
                .atMost(Duration.ofSeconds(30))
                .until(() -> of(a).count("counter.passivated") >= 10);
        assertThat(of(a).count("counter.passivated"))
                .isEqualTo(a.localRegion("counter").passivations());

        ShardingNode b = cluster.startNode(quick);
        Awaitility.await("shards moved to the new node")
                .atMost(Duration.ofSeconds(60))
                .until(() -> b.localRegion("counter").hostedShards() >= 2);
        Awaitility.await("every move counted on the old owner")
                .atMost(Duration.ofSeconds(30))
                .until(() -> of(a).count("counter.handoff")
                        == b.localRegion("counter").hostedShards());
        assertThat(of(a).count("rebalance"))
                .as("rounds on the coordinator's node")
                .isPositive();
        assertThat(of(b).count("rebalance")).isZero();
        assertThat(of(b).count("counter.handoff")).isZero();
    }

    @Test
    void stateWritesAndTheStoresTransactionsAreRecorded() throws Exception {
        cluster.close();
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:metrics-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (JdbcShardingStore store = new JdbcShardingStore(ds)) {
            store.createSchema();
            cluster = new TestCluster(s -> ShardingNode.builder(s)
                    .entityType(Wallet.type())
                    .store(store)
                    .metrics(recording(s)));
            ShardingNode node = cluster.startNode();
            ShardRegion<Wallet> wallets = node.region(Wallet.class);
            List<CompletableFuture<Wallet.Reply>> deposits = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                deposits.add(wallets.ask("w" + (i % 10), new Wallet.Deposit(1), Wallet.Reply.class));
            }
            for (CompletableFuture<Wallet.Reply> d : deposits) {
                d.get(30, TimeUnit.SECONDS);
            }
            Recording r = of(node);
            assertThat(r.count("wallet.write.true")).isEqualTo(50);
            assertThat(r.count("wallet.write.false")).isZero();
            assertThat(r.count("batched")).as("every write in some transaction").isGreaterThanOrEqualTo(50);
            assertThat(r.count("batches")).isBetween(1L, r.count("batched"));
            cluster.close();
        }
    }
}
