package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.AskTimeoutException;
import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardedEntity;
import dev.sharding.ShardingNode;
import dev.sharding.spi.EntityFactory;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller's callback on an ask's future that blocks holds up neither the node's control thread nor the store's
 * completion thread: timeouts, leases and durable writes go on while it blocks.
 */
class AskCallbackIsolationTest {

    /** Lets the blocked callbacks go on at the end of each test. */
    private final CountDownLatch release = new CountDownLatch(1);

    private final CountDownLatch callbackBlocking = new CountDownLatch(1);

    private TestCluster cluster = TestCluster.of(Mute.type());

    @AfterEach
    void stop() {
        release.countDown();
        Mute.answerAll(); // so that the entities stop at once
        cluster.close();
    }

    @Test
    void aTimedOutAsksBlockingCallbackHoldsUpNeitherOtherTimeoutsNorTheLeasesOfTheCoordinatorsNode() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        cluster.awaitStable();
        ShardingNode coordinator = cluster.coordinatorNode();
        ShardRegion<Mute> region = coordinator.region(Mute.class);

        // the callback of a timed-out ask blocks, and joins another ask meanwhile
        CompletableFuture<Object> blocked = region.ask("a", new Mute.Ignore(), Object.class, Duration.ofMillis(100))
                .exceptionally(t -> {
                    callbackBlocking.countDown();
                    region.ask("b", new Mute.Ping(), String.class).join();
                    awaitRelease();
                    return "released";
                });
        assertThat(callbackBlocking.await(10, TimeUnit.SECONDS))
                .as("the first ask timed out")
                .isTrue();

        CompletableFuture<Object> second = region.ask("c", new Mute.Ignore(), Object.class, Duration.ofMillis(100));
        Awaitility.await("a second ask's timeout while the first one's callback blocks")
                .atMost(Duration.ofSeconds(3))
                .until(second::isDone);
        assertThat(second)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(AskTimeoutException.class);

        // longer than a lease: every node keeps serving, and asks through the coordinator's node are answered
        Awaitility.await("every node serving while the callback blocks")
                .during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .until(() -> nodes.stream().allMatch(ShardingNode::isServing));
        for (int i = 0; i < 20; i++) {
            assertThat(region.ask("p" + i, new Mute.Ping(), String.class).get(5, TimeUnit.SECONDS))
                    .isEqualTo("pong");
        }
        assertThat(blocked).isNotDone();
        release.countDown();
        assertThat(blocked.get(10, TimeUnit.SECONDS)).isEqualTo("released");
    }

    @Test
    void aLocalDurableAsksBlockingCallbackHoldsUpNoOtherDurableWrite() throws Exception {
        cluster.close();
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:callbacks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (JdbcShardingStore store = new JdbcShardingStore(ds)) {
            store.createSchema();
            cluster = new TestCluster(
                    s -> ShardingNode.builder(s).entityType(Wallet.type()).store(store));
            ShardingNode node = cluster.startNode();
            ShardRegion<Wallet> wallets = node.region(Wallet.class);

            CompletableFuture<Void> blocked = wallets.ask("a", new Wallet.Deposit(1), Wallet.Reply.class)
                    .thenRun(() -> {
                        callbackBlocking.countDown();
                        awaitRelease();
                    });
            assertThat(callbackBlocking.await(10, TimeUnit.SECONDS))
                    .as("the first deposit was written")
                    .isTrue();

            for (int i = 1; i <= 3; i++) {
                assertThat(wallets.ask("b", new Wallet.Deposit(1), Wallet.Reply.class)
                                .get(5, TimeUnit.SECONDS)
                                .amount())
                        .as("another entity's deposit while the first one's callback blocks")
                        .isEqualTo(i);
            }
            assertThat(blocked).isNotDone();
            release.countDown();
            blocked.get(10, TimeUnit.SECONDS);
            cluster.close();
        }
    }

    @Test
    void callbacksRunOnTheExecutorTheApplicationGives() throws Exception {
        ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "app-callbacks"));
        try {
            cluster = new TestCluster(
                    s -> ShardingNode.builder(s).entityType(Mute.type()).callbackExecutor(callbacks));
            ShardRegion<Mute> region = cluster.startNode().region(Mute.class);
            CompletableFuture<String> timedOut = region.ask(
                            "a", new Mute.Ignore(), Object.class, Duration.ofMillis(100))
                    .handle((v, t) -> Thread.currentThread().getName());
            assertThat(timedOut.get(10, TimeUnit.SECONDS)).isEqualTo("app-callbacks");
            CompletableFuture<String> answered = region.ask("b", new Mute.Slow(), String.class)
                    .thenApply(v -> Thread.currentThread().getName());
            assertThat(answered.get(10, TimeUnit.SECONDS)).isEqualTo("app-callbacks");
        } finally {
            Mute.answerAll();
            cluster.close();
            callbacks.shutdownNow();
        }
    }

    private void awaitRelease() {
        try {
            release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An entity that answers pings and never answers {@link Ignore}. */
    @ShardedEntity(type = "mute", numberOfShards = 12)
    public static class Mute {

        /** Creates it. */
        public Mute() {}

        static EntityType<Mute> type() {
            return EntityType.of(Mute.class, new EntityFactory<>() {
                @Override
                public Mute create(EntityContext context) {
                    return new Mute();
                }

                @Override
                public void destroy(Mute entity) {}
            });
        }

        /** Answers. */
        @EntityHandler
        public String on(Ping ping) {
            return "pong";
        }

        /** Answers a little later, from another thread. */
        @EntityHandler
        public CompletionStage<String> on(Slow slow) {
            return CompletableFuture.supplyAsync(
                    () -> "slow", CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
        }

        private static final Queue<CompletableFuture<String>> UNANSWERED = new ConcurrentLinkedQueue<>();

        /** Never answers (until {@link #answerAll}). */
        @EntityHandler
        public CompletionStage<String> on(Ignore ignore) {
            CompletableFuture<String> never = new CompletableFuture<>();
            UNANSWERED.add(never);
            return never;
        }

        /** Answers every ignored message, so that the entities can stop. */
        static void answerAll() {
            for (CompletableFuture<String> f; (f = UNANSWERED.poll()) != null; ) {
                f.complete("late");
            }
        }

        /** Answered. */
        public record Ping() {}

        /** Answered a little later. */
        public record Slow() {}

        /** Never answered. */
        public record Ignore() {}
    }
}
