package dev.sharding.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.BufferFullException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An entity's mailbox holds at most {@code mailbox-size} messages, and a region's buffer at most {@code buffer-bytes}
 * of frames from other nodes: beyond, asks fail with {@link BufferFullException} and tells are dropped and counted.
 */
class BoundedBuffersTest {

    private final List<NodeRuntime> nodes = new ArrayList<>();

    private final ControllableStore store = new ControllableStore();

    @AfterEach
    void stop() {
        store.release();
        nodes.forEach(n -> n.stop(Duration.ofSeconds(5)));
    }

    @Test
    void aMailboxWhoseEntityWaitsForItsWriteRefusesMessagesBeyondItsBound() throws Exception {
        NodeRuntime node = start(new InMemoryNetwork(), "a", s -> s.withMailboxSize(10));
        awaitServing(node);
        Region<Wallet> region = region(node);
        assertThat(deposit(region, "h").get(10, TimeUnit.SECONDS).amount()).isEqualTo(1);

        // the entity waits for the write of its next deposit: what comes after it waits in the mailbox
        store.holdWrites((id, epoch) -> id.equals("h"));
        CompletableFuture<Wallet.Reply> held = deposit(region, "h");
        Awaitility.await("the write held").atMost(Duration.ofSeconds(10)).until(() -> store.held() >= 1);
        List<CompletableFuture<Wallet.Reply>> waiting = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waiting.add(deposit(region, "h"));
        }
        CompletableFuture<Wallet.Reply> refused = deposit(region, "h");
        assertThat(refused)
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(BufferFullException.class)
                .withMessageContaining("mailbox-size");
        region.tell("h", new Wallet.Deposit(1));
        assertThat(region.mailboxRefusals()).isEqualTo(2);
        assertThat(waiting).noneMatch(CompletableFuture::isDone);

        // once the write is done the waiting messages are taken, and the mailbox has room again
        store.release();
        assertThat(held.get(10, TimeUnit.SECONDS).amount()).isEqualTo(2);
        for (int i = 0; i < 10; i++) {
            assertThat(waiting.get(i).get(10, TimeUnit.SECONDS).amount()).isEqualTo(3 + i);
        }
        assertThat(deposit(region, "h").get(10, TimeUnit.SECONDS).amount()).isEqualTo(13);
        assertThat(region.mailboxRefusals()).isEqualTo(2);
    }

    @Test
    void aRegionBufferRefusesFramesFromOtherNodesBeyondItsByteBound() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        NodeRuntime a = start(network, "a", UnaryOperator.identity());
        NodeRuntime b = start(network, "b", s -> s.withBufferBytes(10_000));
        awaitServing(a, b);
        Region<Wallet> region = region(b);
        String id = idOfShard(region, 3);
        // b never learns where shard 3 lives
        network.drop("home", Integer.MAX_VALUE, m -> m instanceof GetShardHome g && g.shardId() == 3);

        byte[] payload = new byte[3000];
        for (int i = 0; i < 5; i++) {
            network.inject(
                    "a", "b", new EntityEnvelope("wallet", id, 3, 0, null, payload, 0, payload.length, null, null));
        }
        Awaitility.await("three buffered, two dropped")
                .atMost(Duration.ofSeconds(10))
                .until(() -> region.droppedTells() == 2);
        assertThat(region.bufferedMessages()).isEqualTo(3);
        assertThat(region.bufferedBytes()).isBetween(9_000L, 10_000L);
    }

    private static String idOfShard(Region<Wallet> region, int shard) {
        for (int i = 0; ; i++) {
            if (region.shardOf("w" + i) == shard) {
                return "w" + i;
            }
        }
    }

    private static CompletableFuture<Wallet.Reply> deposit(Region<Wallet> region, String id) {
        return region.ask(id, new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofSeconds(30));
    }

    private NodeRuntime start(InMemoryNetwork network, String name, UnaryOperator<ShardingSettings> change)
            throws Exception {
        Set<Class<?>> types = new HashSet<>(EntityHandlers.of(Wallet.class).declaredTypes());
        types.add(Wallet.Balance.class);
        NodeRuntime node = new NodeRuntime(
                change.apply(ShardingSettings.defaults().withNodeName(name).withRetryInterval(Duration.ofMillis(100))),
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                new JacksonMessageCodec(types, 1 << 20),
                network.transport(name),
                store,
                null);
        node.start();
        nodes.add(node);
        return node;
    }

    @SuppressWarnings("unchecked")
    private static Region<Wallet> region(NodeRuntime node) {
        return (Region<Wallet>) node.regions().get("wallet");
    }

    private static void awaitServing(NodeRuntime... all) {
        Awaitility.await("registered and leased").atMost(Duration.ofSeconds(20)).until(() -> {
            for (NodeRuntime n : all) {
                if (!n.isRegistered() || !n.serving()) {
                    return false;
                }
            }
            return true;
        });
    }
}
