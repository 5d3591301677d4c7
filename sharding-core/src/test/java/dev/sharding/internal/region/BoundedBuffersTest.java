package dev.sharding.internal.region;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.BufferFullException;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.node.NodeRuntime;
import dev.sharding.internal.node.WalletNodes;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
        Gate.HOLDS.values().forEach(CountDownLatch::countDown);
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
        // the messages of the run that took them count against the bound until that run ends, which may be a moment
        // after their replies came: a deposit sent in that moment is refused, and sent again
        AtomicInteger refusedAgain = new AtomicInteger();
        AtomicReference<Wallet.Reply> after = new AtomicReference<>();
        Awaitility.await("a deposit taken once the run ended")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    try {
                        after.set(deposit(region, "h").get(10, TimeUnit.SECONDS));
                        return true;
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof BufferFullException)) {
                            throw e;
                        }
                        refusedAgain.incrementAndGet();
                        return false;
                    }
                });
        assertThat(after.get().amount()).isEqualTo(13);
        assertThat(region.mailboxRefusals()).isEqualTo(2 + refusedAgain.get());
    }

    @Test
    void theMessagesTheRunUnderWayTookCountAgainstTheBoundUntilItEnds() throws Exception {
        NodeRuntime node = startGates("a", 40);
        awaitServing(node);
        @SuppressWarnings("unchecked")
        Region<Gate> region = (Region<Gate>) node.regions().get("gate");
        // the shard's home is known (one shard), and the entity "g" has taken nothing yet
        assertThat(region.ask("warm", new Gate.Pass(""), String.class).get(10, TimeUnit.SECONDS))
                .isEqualTo("passed");

        CountDownLatch first = Gate.hold("first");
        CountDownLatch last = Gate.hold("last");
        region.tell("g", new Gate.Pass("first"));
        Awaitility.await("the first message held")
                .atMost(Duration.ofSeconds(10))
                .until(() -> Gate.holding("first"));
        for (int i = 0; i < EntityCell.THROUGHPUT - 2; i++) {
            region.tell("g", new Gate.Pass(""));
        }
        region.tell("g", new Gate.Pass("last"));
        first.countDown();
        // the run that took the first message takes all the others, as many as a run takes, and is held by the last
        Awaitility.await("the last message held").atMost(Duration.ofSeconds(10)).until(() -> Gate.holding("last"));

        // the worst case: nothing waits, yet the run's messages still count, so that only 40 - 32 more fit
        for (int i = 0; i < 40 - EntityCell.THROUGHPUT; i++) {
            region.tell("g", new Gate.Pass(""));
        }
        assertThat(region.mailboxRefusals()).isZero();
        region.tell("g", new Gate.Pass(""));
        assertThat(region.mailboxRefusals()).isEqualTo(1);

        // once the run ends they no longer count: the mailbox takes its whole bound again
        int passed = Gate.PASSED.get();
        last.countDown();
        Awaitility.await("the run ended and the waiting messages were taken")
                .atMost(Duration.ofSeconds(10))
                .until(() -> Gate.PASSED.get() == passed + 1 + 40 - EntityCell.THROUGHPUT);
        Gate.hold("again");
        region.tell("g", new Gate.Pass("again"));
        Awaitility.await("held again").atMost(Duration.ofSeconds(10)).until(() -> Gate.holding("again"));
        for (int i = 0; i < 40 - 1; i++) {
            region.tell("g", new Gate.Pass(""));
        }
        assertThat(region.mailboxRefusals()).isEqualTo(1);
        region.tell("g", new Gate.Pass(""));
        assertThat(region.mailboxRefusals()).isEqualTo(2);
        Gate.hold("again").countDown();
    }

    @Test
    void underConcurrentSendersEveryAcceptedMessageIsHandledAndTheCountComesBackToExactlyWhatWaits() throws Exception {
        int bound = 200;
        NodeRuntime node = startGates("a", bound);
        awaitServing(node);
        @SuppressWarnings("unchecked")
        Region<Gate> region = (Region<Gate>) node.regions().get("gate");
        List<String> ids = List.of("s0", "s1", "s2");
        for (String id : ids) {
            assertThat(region.ask(id, new Gate.Pass(""), String.class).get(10, TimeUnit.SECONDS))
                    .isEqualTo("passed");
        }
        int passedBefore = Gate.PASSED.get();
        int perThread = 30_000;
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread sender = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    region.tell(ids.get(i % ids.size()), new Gate.Pass(""));
                }
            });
            senders.add(sender);
            sender.start();
        }
        for (Thread sender : senders) {
            sender.join(TimeUnit.SECONDS.toMillis(30));
        }
        long accepted = 4L * perThread - region.mailboxRefusals();
        Awaitility.await("every accepted message handled (no mailbox left unscheduled)")
                .atMost(Duration.ofSeconds(30))
                .until(() -> Gate.PASSED.get() - passedBefore == accepted);

        // nothing was counted twice or lost: a held entity takes exactly its bound again, less the held message
        for (String id : ids) {
            long refusals = region.mailboxRefusals();
            Gate.hold("stress-" + id);
            region.tell(id, new Gate.Pass("stress-" + id));
            Awaitility.await("held").atMost(Duration.ofSeconds(10)).until(() -> Gate.holding("stress-" + id));
            for (int i = 0; i < bound - 1; i++) {
                region.tell(id, new Gate.Pass(""));
            }
            assertThat(region.mailboxRefusals()).as("refused by %s", id).isEqualTo(refusals);
            region.tell(id, new Gate.Pass(""));
            assertThat(region.mailboxRefusals()).as("refused by %s", id).isEqualTo(refusals + 1);
            Gate.hold("stress-" + id).countDown();
        }
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
        return WalletNodes.start(network, name, store, change, nodes);
    }

    private NodeRuntime startGates(String name, int mailboxSize) throws Exception {
        NodeRuntime node = new NodeRuntime(
                ShardingSettings.defaults().withNodeName(name).withMailboxSize(mailboxSize),
                List.of(EntityType.of(Gate.class, context -> new Gate())),
                new LeastShardAllocationStrategy(),
                new JacksonMessageCodec(Set.of(Gate.Pass.class), 1 << 20),
                new InMemoryNetwork().transport(name),
                store,
                null);
        node.start();
        nodes.add(node);
        return node;
    }

    /** An entity whose handler can be held, on its entity thread, until the test lets it go. */
    @ShardedEntity(type = "gate", numberOfShards = 1)
    public static class Gate {

        private static final Map<String, CountDownLatch> HOLDS = new ConcurrentHashMap<>();

        private static final Set<String> HOLDING = ConcurrentHashMap.newKeySet();

        static final AtomicInteger PASSED = new AtomicInteger();

        static CountDownLatch hold(String name) {
            return HOLDS.computeIfAbsent(name, k -> new CountDownLatch(1));
        }

        static boolean holding(String name) {
            return HOLDING.contains(name);
        }

        /**
         * @param pass the message
         * @return "passed", once its hold (if any) is let go
         */
        @EntityHandler
        public String on(Pass pass) throws InterruptedException {
            CountDownLatch latch = HOLDS.get(pass.hold());
            if (latch != null) {
                HOLDING.add(pass.hold());
                latch.await(30, TimeUnit.SECONDS);
            }
            PASSED.incrementAndGet();
            return "passed";
        }

        /** @param hold the name of the hold to wait for, or "" */
        public record Pass(String hold) {}
    }

    private static Region<Wallet> region(NodeRuntime node) {
        return WalletNodes.region(node);
    }

    private static void awaitServing(NodeRuntime... all) {
        WalletNodes.awaitServing(all);
    }
}
