package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.ForwardingStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Remembered entities: an entity's events keep their order in the store when a write of them fails and is tried
 * again after a newer event of the same entity, so that an entity that stopped is not started again later.
 */
class RememberOrderTest {

    @Test
    void aFailedWriteRetriedAfterANewerEventDoesNotOverwriteIt() throws Exception {
        InMemoryShardingStore memory = new InMemoryShardingStore();
        CompletableFuture<Void> firstWrite = new CompletableFuture<>();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ForwardingStore store = new ForwardingStore(memory) {
            @Override
            public CompletableFuture<Void> updateRemembered(
                    String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
                if (writes.incrementAndGet() == 1) {
                    // the first write (the entity started) hangs, then fails
                    return firstWrite.whenComplete((v, t) -> done.incrementAndGet());
                }
                return super.updateRemembered(typeName, shardId, epoch, started, stopped)
                        .whenComplete((v, t) -> done.incrementAndGet());
            }
        };
        ShardingSettings settings = ShardingSettings.defaults()
                .withNodeName("a")
                .withRetryInterval(Duration.ofMillis(100))
                .withEntity(
                        "wallet",
                        EntityTypeSettings.builder().rememberEntities(true).build());
        EntityType<Wallet> type = Wallet.type();
        java.util.Set<Class<?>> types =
                new java.util.HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        NodeRuntime node = new NodeRuntime(
                settings,
                List.of(type),
                new LeastShardAllocationStrategy(),
                new JacksonMessageCodec(types, 1 << 20),
                new InMemoryNetwork().transport("a"),
                store,
                null);
        node.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> node.isRegistered() && node.serving());
            @SuppressWarnings("unchecked")
            Region<Wallet> region = (Region<Wallet>) node.regions().get("wallet");
            region.ask("e", new Wallet.Deposit(1), Wallet.Reply.class).get(10, TimeUnit.SECONDS);
            Awaitility.await("the start of e is being written")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> writes.get() >= 1);
            // e stops (passivates itself) while the write of its start hangs
            region.ask("e", new Wallet.Rest(), Wallet.Reply.class).get(10, TimeUnit.SECONDS);
            Awaitility.await("e passivated")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> region.entityIds().values().stream().noneMatch(ids -> ids.contains("e")));
            firstWrite.completeExceptionally(new IllegalStateException("store unavailable"));
            Awaitility.await("the failed write tried again")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> done.get() >= 2 && writes.get() == done.get());
            int shard = EntityType.shardOf("e", region.numberOfShards());
            Set<String> remembered = memory.remembered("wallet", shard).get();
            assertThat(remembered).as("e stopped last, so it is not remembered").doesNotContain("e");
        } finally {
            node.stop(Duration.ofSeconds(5));
        }
    }
}
