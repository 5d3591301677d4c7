package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AdminResult;
import dev.sharding.AppliedMessageWindow;
import dev.sharding.EntityException;
import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.IdempotencyKeyReusedException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.StoreUnavailableException;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.Counter;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Asks with a message id apply once: a repeat gets the recorded reply without running the handler, whether the entity
 * stayed, passivated, moved, or its node crashed after storing the change and before the reply left.
 */
class IdempotentAskClusterTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Stores like the in-memory store; a write of a chosen entity commits and then never completes. */
    private static final class LosingStore extends ControllableStore {

        volatile String swallow = "";

        final CountDownLatch committed = new CountDownLatch(1);

        @Override
        public CompletableFuture<StoredState> write(
                String typeName,
                String entityId,
                int shardId,
                long epoch,
                byte[] state,
                byte @org.jspecify.annotations.Nullable [] applied) {
            CompletableFuture<StoredState> write = super.write(typeName, entityId, shardId, epoch, state, applied);
            if (!entityId.equals(swallow)) {
                return write;
            }
            swallow = "";
            // durable, but the node never hears it: as if it were killed right after the commit
            return write.thenCompose(stored -> {
                committed.countDown();
                return new CompletableFuture<>();
            });
        }
    }

    private final LosingStore store = new LosingStore();

    private final TestCluster cluster = new TestCluster(s -> ShardingNode.builder(s)
            .entityType(Wallet.type())
            .entityType(Counter.type())
            .store(store));

    @AfterEach
    void stop() {
        store.release();
        cluster.close();
    }

    private static Wallet.Reply deposit(ShardingNode via, String id, long amount, String messageId) throws Exception {
        return via.region(Wallet.class)
                .ask(id, new Wallet.Deposit(amount), Wallet.Reply.class, TIMEOUT, messageId)
                .get(30, TimeUnit.SECONDS);
    }

    private static Wallet.Reply read(ShardingNode via, String id) throws Exception {
        return via.region(Wallet.class)
                .ask(id, new Wallet.Read(), Wallet.Reply.class)
                .get(30, TimeUnit.SECONDS);
    }

    private static ShardingNode named(List<ShardingNode> nodes, String name) {
        return nodes.stream().filter(n -> n.nodeName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aRepeatedIdGetsTheRecordedReplyFromAnyNodeAndTheHandlerRunsOnce() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        Wallet.Reply first = deposit(nodes.get(0), "a", 10, "key-1");
        assertThat(first.amount()).isEqualTo(10);
        assertThat(deposit(nodes.get(1), "a", 10, "key-1"))
                .as("the same reply, through another node")
                .isEqualTo(first);
        for (ShardingNode via : nodes) {
            assertThatThrownBy(() -> deposit(via, "a", 99, "key-1"))
                    .as("an id applied to another message is refused, through %s", via.nodeName())
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IdempotencyKeyReusedException.class)
                    .hasMessageContaining("Message id key-1 was applied lately by [wallet/a] to another message");
        }
        assertThat(read(nodes.get(0), "a").amount()).as("nothing applied").isEqualTo(10);
        assertThat(deposit(nodes.get(1), "a", 5, "key-2").amount()).isEqualTo(15);
        assertThat(nodes.get(0)
                        .region(Wallet.class)
                        .ask("a", new Wallet.Deposit(1), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .as("without an id, as before")
                .isEqualTo(16);
        assertThat(read(nodes.get(1), "a").deposits()).isEqualTo(3);

        // the same id sent many times at once, from both nodes: applied once, every caller gets its reply
        List<CompletableFuture<Wallet.Reply>> burst = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            burst.add(nodes.get(i % 2)
                    .region(Wallet.class)
                    .ask("a", new Wallet.Deposit(100), Wallet.Reply.class, TIMEOUT, "key-3"));
        }
        Set<Wallet.Reply> replies = burst.stream().map(CompletableFuture::join).collect(Collectors.toSet());
        assertThat(replies).hasSize(1);
        assertThat(replies.iterator().next().amount()).isEqualTo(116);
        assertThat(read(nodes.get(0), "a").amount()).isEqualTo(116);
        assertThat(read(nodes.get(0), "a").deposits()).isEqualTo(4);
    }

    @Test
    void aRetryAfterTheNodeDiedBetweenTheCommitAndTheReplyAppliesOnce() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode caller = nodes.get(0);
        // an entity that lives on another node than the caller's
        String id = null;
        String owner = null;
        for (int i = 0; id == null; i++) {
            Wallet.Reply r = read(caller, "w-" + i);
            if (!r.node().equals(caller.nodeName())) {
                id = "w-" + i;
                owner = r.node();
            }
        }
        deposit(caller, id, 7, "before");
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split
        store.swallow = id;
        CompletableFuture<Wallet.Reply> lost = caller.region(Wallet.class)
                .ask(id, new Wallet.Deposit(10), Wallet.Reply.class, Duration.ofSeconds(60), "pay-1");
        assertThat(store.committed.await(10, TimeUnit.SECONDS))
                .as("deposit committed")
                .isTrue();
        named(nodes, owner).crash();
        assertThatThrownBy(() -> lost.get(60, TimeUnit.SECONDS))
                .as("the caller never learns whether the deposit was applied")
                .isInstanceOf(ExecutionException.class);

        // the client retries with the same id until it gets an answer; the deposit counts once
        Wallet.Reply retried = null;
        while (retried == null) {
            try {
                retried = deposit(caller, id, 10, "pay-1");
            } catch (ExecutionException e) {
                // the shard has no home yet: try again, as a client would
            }
        }
        assertThat(retried.amount()).isEqualTo(17);
        assertThat(retried.node())
                .as("the recorded reply, from the node that applied it")
                .isEqualTo(owner);
        Wallet.Reply now = read(caller, id);
        assertThat(now.amount()).isEqualTo(17);
        assertThat(now.deposits()).isEqualTo(2);
        assertThat(now.node()).isNotEqualTo(owner);
    }

    @Test
    void theIdsSurvivePassivationAndTravelWithTheShard() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        Wallet.Reply first = deposit(nodes.get(0), "m", 3, "k");
        nodes.get(0)
                .region(Wallet.class)
                .ask("m", new Wallet.Rest(), Wallet.Reply.class)
                .get(10, TimeUnit.SECONDS);
        ShardingNode home = named(nodes, first.node());
        Awaitility.await("passivated")
                .atMost(TIMEOUT)
                .until(() ->
                        home.localRegion("wallet").entityIds().values().stream().noneMatch(ids -> ids.contains("m")));
        assertThat(deposit(nodes.get(1), "m", 3, "k")).isEqualTo(first);

        String other = first.node().equals("n1") ? "n2" : "n1";
        int shard = EntityType.shardOf("m", 12);
        AdminResult moved = nodes.get(0).admin().handOff("wallet", shard, other).get(10, TimeUnit.SECONDS);
        assertThat(moved.accepted()).as(moved.message()).isTrue();
        Awaitility.await("shard moved")
                .atMost(TIMEOUT)
                .until(() ->
                        named(nodes, other).localRegion("wallet").entityIds().containsKey(shard));
        assertThat(deposit(nodes.get(0), "m", 3, "k"))
                .as("recorded on the old home, answered by the new one")
                .isEqualTo(first);
        Wallet.Reply now = read(nodes.get(1), "m");
        assertThat(now.amount()).isEqualTo(3);
        assertThat(now.node()).isEqualTo(other);
    }

    @Test
    void aMessageThatFailedRecordedNothingSoItsRetryApplies() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Wallet> region = nodes.get(1).region(Wallet.class);
        deposit(nodes.get(0), "f", 1, "first");
        store.failWrites("f"::equals);
        assertThatThrownBy(() -> region.ask("f", new Wallet.Deposit(5), Wallet.Reply.class, TIMEOUT, "pay")
                        .get(10, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("could not be stored");
        store.failWrites(id -> false);
        assertThat(deposit(nodes.get(0), "f", 5, "pay").amount()).isEqualTo(6);
        assertThat(deposit(nodes.get(1), "f", 5, "pay").amount()).isEqualTo(6);

        // a handler that throws: no state change and no record; the retry runs the handler again
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> region.ask("f", new Wallet.DepositThenFail(50), Wallet.Reply.class, TIMEOUT, "bad")
                            .get(10, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(EntityException.class)
                    .hasMessageContaining("refused after changing the state");
        }
        assertThat(read(nodes.get(0), "f").amount()).isEqualTo(6);
    }

    @Test
    void eachEntityKeepsTheLastIdsOfItsWindowAndAppliesOlderOnesAgain() throws Exception {
        UnaryOperator<ShardingSettings> twoIds = s -> s.withEntity(
                "wallet",
                EntityTypeSettings.builder()
                        .appliedMessages(new AppliedMessageWindow(2, Duration.ofHours(1)))
                        .build());
        List<ShardingNode> nodes = cluster.startNodes(2, twoIds);
        deposit(nodes.get(0), "w", 1, "k1");
        deposit(nodes.get(0), "w", 1, "k2");
        deposit(nodes.get(0), "w", 1, "k3");
        assertThat(deposit(nodes.get(1), "w", 1, "k3").amount()).as("k3 kept").isEqualTo(3);
        assertThat(deposit(nodes.get(1), "w", 1, "k2").amount()).as("k2 kept").isEqualTo(2);
        assertThat(deposit(nodes.get(1), "w", 1, "k1").amount())
                .as("k1 left the window of two: applied again")
                .isEqualTo(4);
        assertThat(read(nodes.get(0), "w").deposits()).isEqualTo(4);
    }

    @Test
    void clearingTheStateKeepsTheIds() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        deposit(nodes.get(0), "c", 8, "in");
        Wallet.Reply closed = nodes.get(0)
                .region(Wallet.class)
                .ask("c", new Wallet.Close(), Wallet.Reply.class, TIMEOUT, "close")
                .get(10, TimeUnit.SECONDS);
        assertThat(closed.amount()).isZero();
        assertThat(deposit(nodes.get(1), "c", 8, "in").amount())
                .as("the deposit before the close is not applied again")
                .isEqualTo(8);
        deposit(nodes.get(1), "c", 2, "again");
        assertThat(nodes.get(1)
                        .region(Wallet.class)
                        .ask("c", new Wallet.Close(), Wallet.Reply.class, TIMEOUT, "close")
                        .get(10, TimeUnit.SECONDS))
                .isEqualTo(closed);
        assertThat(read(nodes.get(0), "c").amount()).isEqualTo(2);
        // a close without an id too: the row stays, empty, with the ids, so an old deposit retried now is not applied
        nodes.get(0)
                .region(Wallet.class)
                .ask("c", new Wallet.Close(), Wallet.Reply.class)
                .get(10, TimeUnit.SECONDS);
        assertThat(store.read("wallet", "c").get().orElseThrow().state()).isEmpty();
        assertThat(deposit(nodes.get(1), "c", 2, "again").amount()).isEqualTo(2);
        assertThat(read(nodes.get(0), "c").amount()).isZero();
    }

    @Test
    void badIdsAndTypesWithoutStateAreRefusedAndChangeNothing() throws Exception {
        ShardingNode node = cluster.startNode();
        ShardRegion<Wallet> wallets = node.region(Wallet.class);
        for (String bad : new String[] {"", "x".repeat(ShardingSettings.MAX_MESSAGE_ID_LENGTH + 1)}) {
            assertThatThrownBy(() -> wallets.ask("b", new Wallet.Deposit(1), Wallet.Reply.class, TIMEOUT, bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Invalid message id");
        }
        assertThatThrownBy(() -> wallets.ask("b", new Wallet.Deposit(1), Wallet.Reply.class, TIMEOUT, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        node.region(Counter.class).ask("b", new Counter.Add(1), Counter.Total.class, TIMEOUT, "k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no durable state");
        assertThat(deposit(node, "b", 4, "x".repeat(ShardingSettings.MAX_MESSAGE_ID_LENGTH))
                        .amount())
                .isEqualTo(4);
        assertThat(read(node, "b").deposits())
                .as("the refused asks changed nothing")
                .isEqualTo(1);
    }
}
