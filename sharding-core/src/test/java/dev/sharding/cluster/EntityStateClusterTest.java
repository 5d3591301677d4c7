package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AdminResult;
import dev.sharding.EntityException;
import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.StoreUnavailableException;
import dev.sharding.test.ControllableStore;
import dev.sharding.test.HandOffs;
import dev.sharding.test.TestCluster;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * State that a caller was told is stored survives moves and crashes; a stale owner cannot overwrite it; a failed
 * write leaves the stored state as it was.
 */
class EntityStateClusterTest {

    private static final List<String> IDS =
            IntStream.range(0, 24).mapToObj(i -> "w-" + i).toList();

    private final ControllableStore store = new ControllableStore();

    private final TestCluster cluster = new TestCluster(
            s -> ShardingNode.builder(s).entityType(Wallet.type()).store(store));

    @AfterEach
    void stop() {
        store.release();
        cluster.close();
    }

    private static Wallet.Reply read(ShardingNode via, String id) throws Exception {
        return via.region(Wallet.class)
                .ask(id, new Wallet.Read(), Wallet.Reply.class)
                .get(30, TimeUnit.SECONDS);
    }

    /**
     * A shard's stop walks its cells in chunks on the entity executor, with one count for all of them: a node whose
     * shards hold thousands of entities each (several chunks) hands them all off, each entity stopped once, long
     * before the handoff timeout would stop them by force, and every balance is read back on the others.
     */
    @Test
    void aLeavingNodeHandsOffShardsOfThousandsOfEntitiesEachStoppedOnce() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3, s -> s.withHandoffTimeout(Duration.ofMinutes(3)));
        ShardRegion<Wallet> wallets = nodes.get(0).region(Wallet.class);
        List<String> ids = IntStream.range(0, 15_000).mapToObj(i -> "many-" + i).toList();
        List<CompletableFuture<Wallet.Reply>> deposits = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            deposits.add(wallets.ask(ids.get(i), new Wallet.Deposit(1 + i % 7), Wallet.Reply.class));
        }
        CompletableFuture.allOf(deposits.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        ShardingNode leaver = nodes.stream()
                .filter(n -> n != cluster.coordinatorNode())
                .max(java.util.Comparator.comparingInt(n -> n.localRegion("wallet").entityIds().values().stream()
                        .mapToInt(List::size)
                        .sum()))
                .orElseThrow();
        int hosted = leaver.localRegion("wallet").entityIds().values().stream()
                .mapToInt(List::size)
                .sum();
        assertThat(hosted).as("entities on the leaving node").isGreaterThan(2_500);
        int destroyedBefore = Wallet.DESTROYED.get();

        // a count that never reached zero would hold the close until the handoff timeout (3 minutes)
        CompletableFuture.runAsync(leaver::close).get(90, TimeUnit.SECONDS);

        assertThat(Wallet.DESTROYED.get() - destroyedBefore)
                .as("each entity of the leaving node stopped once")
                .isEqualTo(hosted);
        ShardingNode via = nodes.stream().filter(n -> n != leaver).findFirst().orElseThrow();
        for (int i = 0; i < ids.size(); i++) {
            Wallet.Reply r = read(via, ids.get(i));
            assertThat(r.amount()).as(ids.get(i)).isEqualTo(1 + i % 7);
            assertThat(r.deposits()).isEqualTo(1);
        }
    }

    @Test
    void acknowledgedDepositsSurviveHandoffsUnderLoadAndTheStateTravelsWithTheShard() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        Map<String, AtomicLong> acknowledged = new ConcurrentHashMap<>();
        IDS.forEach(id -> acknowledged.put(id, new AtomicLong()));
        AtomicBoolean running = new AtomicBoolean(true);
        List<CompletableFuture<Void>> senders = new ArrayList<>();
        for (ShardingNode via : nodes) {
            ShardRegion<Wallet> region = via.region(Wallet.class);
            senders.add(CompletableFuture.runAsync(() -> {
                while (running.get()) {
                    List<CompletableFuture<Wallet.Reply>> window = new ArrayList<>();
                    for (String id : IDS) {
                        window.add(region.ask(id, new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofSeconds(30)));
                    }
                    for (int i = 0; i < IDS.size(); i++) {
                        window.get(i).join();
                        acknowledged.get(IDS.get(i)).incrementAndGet();
                    }
                }
            }));
        }
        Awaitility.await("deposits flowing")
                .atMost(Duration.ofSeconds(30))
                .until(() -> acknowledged.values().stream().allMatch(a -> a.get() >= 20));
        long readsBefore = store.reads();
        for (int round = 0; round < 2; round++) {
            for (int shard = 0; shard < 12; shard++) {
                String target = nodes.get((shard + round) % 3).nodeName();
                int s = shard;
                AdminResult r =
                        nodes.get(0).admin().handOff("wallet", shard, target).get(10, TimeUnit.SECONDS);
                if (r.accepted()) {
                    Awaitility.await("shard " + shard + " on " + target)
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> nodes.stream()
                                    .filter(n -> n.nodeName().equals(target))
                                    .findFirst()
                                    .orElseThrow()
                                    .localRegion("wallet")
                                    .entityIds()
                                    .containsKey(s));
                }
            }
        }
        running.set(false);
        CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        for (String id : IDS) {
            Wallet.Reply r = read(nodes.get(1), id);
            assertThat(r.amount())
                    .as("balance of %s: every acknowledged deposit, no more", id)
                    .isEqualTo(acknowledged.get(id).get());
            assertThat(r.deposits()).isEqualTo(acknowledged.get(id).get());
        }
        assertThat(store.reads() - readsBefore)
                .as("store reads after the first activations: the state travelled" + " with the shards")
                .isZero();
    }

    @Test
    void aCrashedOwnersEntitiesReadTheirStateBackFromTheStore() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode via = nodes.get(0);
        for (String id : IDS) {
            for (int i = 0; i < 3; i++) {
                via.region(Wallet.class)
                        .ask(id, new Wallet.Deposit(5), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS);
            }
        }
        ShardingNode victim = nodes.get(2);
        long onVictim = IDS.stream()
                .filter(id -> victim.localRegion("wallet").entityIds().values().stream()
                        .anyMatch(ids -> ids.contains(id)))
                .count();
        assertThat(onVictim).isPositive();
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split
        victim.crash();
        cluster.awaitConverged();
        for (String id : IDS) {
            Wallet.Reply r = read(via, id);
            assertThat(r.amount()).as(id).isEqualTo(15);
            assertThat(r.node()).isNotEqualTo(victim.nodeName());
        }
    }

    @Test
    void aStaleOwnerCannotOverwriteTheStateAfterItsShardMoved() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2, s -> s.withHandoffTimeout(Duration.ofSeconds(2)));
        String id = "stale";
        int shard = EntityType.shardOf(id, 12);
        Wallet.Reply first = nodes.get(0)
                .region(Wallet.class)
                .ask(id, new Wallet.Deposit(10), Wallet.Reply.class)
                .get(10, TimeUnit.SECONDS);
        String owner = first.node();
        String other = owner.equals("n1") ? "n2" : "n1";

        // the owner's next write hangs (a slow database); meanwhile the shard is moved away
        store.holdWrites((entity, epoch) -> entity.equals(id) && epoch == 1);
        CompletableFuture<Wallet.Reply> held = nodes.get(0)
                .region(Wallet.class)
                .ask(id, new Wallet.Deposit(1000), Wallet.Reply.class, Duration.ofSeconds(60));
        AdminResult r = HandOffs.handOff(nodes.get(0), "wallet", shard, other);
        assertThat(r.accepted()).as(r.message()).isTrue();
        Awaitility.await("shard forced to move after handoff-timeout")
                .atMost(Duration.ofSeconds(30))
                .until(() -> nodes.stream()
                        .filter(n -> n.nodeName().equals(other))
                        .findFirst()
                        .orElseThrow()
                        .localRegion("wallet")
                        .entityIds()
                        .containsKey(shard));
        ShardingNode newHome = nodes.stream()
                .filter(n -> n.nodeName().equals(other))
                .findFirst()
                .orElseThrow();
        assertThat(newHome.region(Wallet.class)
                        .ask(id, new Wallet.Deposit(1), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(11);

        // the stale owner's write finally reaches the store: refused, and its caller is told to retry: not an
        // EntityException, which says a retry is refused again
        store.release();
        assertThatThrownBy(() -> held.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isExactlyInstanceOf(dev.sharding.ShardingException.class)
                .hasMessageContaining("moved to another node")
                .hasMessageContaining("retry it")
                .hasMessageContaining("allocated since");
        assertThat(read(newHome, id).amount()).isEqualTo(11);
    }

    @Test
    void aHandOffWhileTheStoreCannotReadAnEntitysStateFailsItsWaitingAskAsStoreUnavailable() throws Exception {
        // long waits between start attempts and a long handoff timeout: the handoff must not wait for either
        List<ShardingNode> nodes = cluster.startNodes(
                2,
                s -> s.withBackoff(Duration.ofMinutes(5), Duration.ofSeconds(1))
                        .withHandoffTimeout(Duration.ofMinutes(5)));
        String id = "r";
        int shard = EntityType.shardOf(id, 12);
        store.failReads(id::equals);
        CompletableFuture<Wallet.Reply> waiting = nodes.get(0)
                .region(Wallet.class)
                .ask(id, new Wallet.Deposit(100), Wallet.Reply.class, Duration.ofMinutes(5));
        Awaitility.await("the first start failed")
                .atMost(Duration.ofSeconds(10))
                .until(() -> store.reads() > 0);
        ShardingNode owner = nodes.stream()
                .filter(n -> n.localRegion("wallet").entityIds().containsKey(shard))
                .findFirst()
                .orElseThrow();
        ShardingNode other = nodes.stream().filter(n -> n != owner).findFirst().orElseThrow();
        assertThat(owner.admin()
                        .handOff("wallet", shard, other.nodeName())
                        .get(30, TimeUnit.SECONDS)
                        .accepted())
                .isTrue();
        assertThatThrownBy(() -> waiting.get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isExactlyInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("could not start")
                .hasMessageContaining("store unavailable for r");
        store.failReads(x -> false);
        assertThat(read(other, id).amount()).as("the deposit had no effect").isZero();
    }

    @Test
    void aFailedWriteFailsTheAskAndLeavesTheStoredState() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardRegion<Wallet> region = nodes.get(1).region(Wallet.class);
        String home = region.ask("f", new Wallet.Deposit(7), Wallet.Reply.class)
                .get(10, TimeUnit.SECONDS)
                .node();
        store.failWrites("f"::equals);
        // the store failed: a distinct, retryable exception, to an asker on the entity's node and on another
        for (ShardingNode asker : nodes) {
            assertThatThrownBy(() -> asker.region(Wallet.class)
                            .ask("f", new Wallet.Deposit(100), Wallet.Reply.class)
                            .get(10, TimeUnit.SECONDS))
                    .as(asker.nodeName().equals(home) ? "local ask" : "remote ask")
                    .cause()
                    .isExactlyInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("[wallet/f] could not be stored because the store failed")
                    .hasMessageContaining("no effect")
                    .hasMessageContaining("store unavailable for f");
            assertThat(read(asker, "f").amount())
                    .as("state back to the stored value")
                    .isEqualTo(7);
        }
        assertThatThrownBy(() -> region.ask("f", new Wallet.DepositThenFail(50), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(EntityException.class)
                .hasMessageContaining("refused after changing the state");
        assertThat(read(nodes.get(0), "f").amount())
                .as("a failed handler's change is discarded")
                .isEqualTo(7);
        store.failWrites(id -> false);
        assertThat(region.ask("f", new Wallet.Deposit(1), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(8);
        assertThat(region.ask("f", new Wallet.Close(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isZero();
    }
}
