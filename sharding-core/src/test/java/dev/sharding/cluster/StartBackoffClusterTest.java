package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.BufferFullException;
import dev.sharding.EntityContext;
import dev.sharding.EntityException;
import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.spi.EntityFactory;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.Counter;
import dev.sharding.test.ForwardingStore;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An entity whose start fails is tried again with a growing wait, its messages waiting (bounded) meanwhile and then
 * handled once, in order; a handoff during the wait fails them at once instead of waiting for the handoff timeout; a
 * remembered entity and a failed read of remembered ids are tried again too.
 */
class StartBackoffClusterTest {

    /** How many more times the creation of each id fails. */
    private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

    private final AtomicInteger created = new AtomicInteger();

    private TestCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private EntityType<Counter> flakyCounter() {
        return EntityType.of(Counter.class, new EntityFactory<>() {
            @Override
            public Counter create(EntityContext ctx) {
                AtomicInteger left = failures.get(ctx.entityId());
                if (left != null && left.getAndDecrement() > 0) {
                    throw new IllegalStateException("dependency of " + ctx.entityId() + " not ready");
                }
                created.incrementAndGet();
                return new Counter(ctx);
            }

            @Override
            public void destroy(Counter entity) {
                // nothing held
            }
        });
    }

    private static ShardingSettings quickBackoff(ShardingSettings s) {
        return s.withBackoff(Duration.ofMillis(400), Duration.ofMillis(400));
    }

    @Test
    void messagesWaitWhileTheStartFailsAndAreHandledOnceInOrderWhenItSucceeds() throws Exception {
        cluster = TestCluster.of(flakyCounter());
        ShardingNode node = cluster.startNode(StartBackoffClusterTest::quickBackoff);
        failures.put("flaky", new AtomicInteger(3));

        for (int i = 1; i <= 5; i++) {
            node.region(Counter.class).tell("flaky", new Counter.Add(i));
        }
        Counter.Total total = node.region(Counter.class)
                .ask("flaky", new Counter.Add(100), Counter.Total.class, Duration.ofSeconds(30))
                .get(30, TimeUnit.SECONDS);
        assertThat(total.count()).as("every message handled, once").isEqualTo(6);
        assertThat(total.total()).isEqualTo(115);
        assertThat(failures.get("flaky").get())
                .as("three failed attempts, then one that worked")
                .isEqualTo(-1);
        assertThat(created.get()).isEqualTo(1);

        // other entities were never held up
        assertThat(node.region(Counter.class)
                        .ask("steady", new Counter.Add(1), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .total())
                .isEqualTo(1);
    }

    @Test
    void theWaitingMessagesAreBoundedByTheBufferSize() throws Exception {
        cluster = TestCluster.of(flakyCounter());
        ShardingNode node = cluster.startNode(s -> quickBackoff(s).withBufferSize(5));
        failures.put("broken", new AtomicInteger(Integer.MAX_VALUE));

        List<CompletableFuture<Counter.Total>> asks = new ArrayList<>();
        asks.add(node.region(Counter.class)
                .ask("broken", new Counter.Add(1), Counter.Total.class, Duration.ofSeconds(30)));
        Awaitility.await("the first attempt failed")
                .atMost(Duration.ofSeconds(10))
                .until(() -> failures.get("broken").get() < Integer.MAX_VALUE);
        for (int i = 1; i < 21; i++) {
            asks.add(node.region(Counter.class)
                    .ask("broken", new Counter.Add(1), Counter.Total.class, Duration.ofSeconds(30)));
        }
        // five wait in the mailbox (and any that came in before the first attempt had failed); the rest do not fit
        Awaitility.await("the asks beyond the bound failed")
                .atMost(Duration.ofSeconds(10))
                .until(() -> asks.stream().filter(CompletableFuture::isDone).count() >= 10);
        long full = asks.stream()
                .filter(f ->
                        f.isCompletedExceptionally() && f.handle((v, t) -> t).join() instanceof BufferFullException)
                .count();
        assertThat(full).isBetween(10L, 15L);
        assertThat(asks.stream().filter(f -> !f.isDone()).count())
                .as("the first and those that fit still wait")
                .isEqualTo(21 - full);
        assertThat(node.region(Counter.class)
                        .ask("other", new Counter.Add(1), Counter.Total.class)
                        .get(10, TimeUnit.SECONDS)
                        .total())
                .isEqualTo(1);
    }

    @Test
    void aHandOffDuringTheWaitFailsTheWaitingMessagesAtOnceWithTheReason() throws Exception {
        cluster = TestCluster.of(flakyCounter());
        // a long wait between attempts and a long handoff timeout: the handoff must not wait for either
        ShardingNode a = cluster.startNode(s ->
                s.withBackoff(Duration.ofMinutes(5), Duration.ofSeconds(1)).withHandoffTimeout(Duration.ofMinutes(5)));
        failures.put("broken", new AtomicInteger(Integer.MAX_VALUE));
        CompletableFuture<Counter.Total> waiting =
                a.region(Counter.class).ask("broken", new Counter.Add(1), Counter.Total.class, Duration.ofMinutes(5));
        Awaitility.await("the first attempt failed")
                .atMost(Duration.ofSeconds(10))
                .until(() -> failures.get("broken").get() < Integer.MAX_VALUE);
        ShardingNode b = cluster.startNode(s -> s.withBackoff(Duration.ofMinutes(5), Duration.ofSeconds(1)));

        int shard = EntityType.shardOf("broken", 20);
        assertThat(a.admin()
                        .handOff("counter", shard, b.nodeName())
                        .get(30, TimeUnit.SECONDS)
                        .accepted())
                .isTrue();
        assertThatThrownBy(() -> waiting.get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(EntityException.class)
                .hasMessageContaining("could not start")
                .hasMessageContaining("not ready");
        Awaitility.await("the shard moved to " + b.nodeName())
                .atMost(Duration.ofSeconds(30))
                .until(() -> b.localRegion("counter").entityIds().containsKey(shard));

        // the entity's next message tries again on the new owner
        failures.put("broken", new AtomicInteger(1));
        assertThat(b.region(Counter.class)
                        .ask("broken", new Counter.Add(7), Counter.Total.class, Duration.ofSeconds(30))
                        .get(60, TimeUnit.SECONDS)
                        .total())
                .isEqualTo(7);
    }

    @Test
    void aRememberedEntityWhoseStartFailsAndAFailedReadOfRememberedIdsAreTriedAgain() throws Exception {
        AtomicInteger rememberedReadsToFail = new AtomicInteger();
        InMemoryShardingStore shared = new InMemoryShardingStore();
        cluster = new TestCluster(settings -> ShardingNode.builder(settings)
                .entityType(flakyCounter())
                .store(new ForwardingStore(shared) {
                    @Override
                    public CompletableFuture<Set<String>> remembered(String typeName, int shardId) {
                        return rememberedReadsToFail.getAndDecrement() > 0
                                ? CompletableFuture.failedFuture(new IllegalStateException("database restarting"))
                                : super.remembered(typeName, shardId);
                    }
                }));
        java.util.function.UnaryOperator<ShardingSettings> remember = s -> quickBackoff(s)
                .withEntity(
                        "counter",
                        EntityTypeSettings.builder().rememberEntities(true).build());
        ShardingNode a = cluster.startNode(remember);
        a.region(Counter.class)
                .ask("kept", new Counter.Add(1), Counter.Total.class)
                .get(10, TimeUnit.SECONDS);
        ShardingNode b = cluster.startNode(remember);
        int shard = EntityType.shardOf("kept", 20);
        Awaitility.await("the start of kept is remembered")
                .atMost(Duration.ofSeconds(30))
                .until(() -> shared.remembered("counter", shard).join().contains("kept"));

        // on the new owner the read of the remembered ids fails twice and the creation twice: it starts anyway
        rememberedReadsToFail.set(2);
        failures.put("kept", new AtomicInteger(2));
        int before = created.get();
        assertThat(a.admin()
                        .handOff("counter", shard, b.nodeName())
                        .get(30, TimeUnit.SECONDS)
                        .accepted())
                .isTrue();
        Awaitility.await("kept started again on " + b.nodeName() + " without a message")
                .atMost(Duration.ofSeconds(30))
                .until(() -> b.localRegion("counter")
                        .entityIds()
                        .getOrDefault(shard, List.of())
                        .contains("kept"));
        assertThat(created.get()).isEqualTo(before + 1);
        assertThat(rememberedReadsToFail.get()).isNegative();
        assertThat(failures.get("kept").get()).isNegative();
    }
}
