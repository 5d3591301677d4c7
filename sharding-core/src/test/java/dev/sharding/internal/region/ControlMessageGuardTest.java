package dev.sharding.internal.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AskTimeoutException;
import dev.sharding.EntityType;
import dev.sharding.EntityTypeSettings;
import dev.sharding.Member;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.node.NodeRuntime;
import dev.sharding.internal.node.WalletNodes;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.ForwardingStore;
import dev.sharding.test.InMemoryNetwork;
import dev.sharding.test.Wallet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hardening of the protocol against messages that come from the wrong member or name the wrong things: commands only
 * from the current coordinator, homes only on members of the view, carried state only from the allocation just
 * before, one store per cluster, and one cluster per store.
 */
class ControlMessageGuardTest {

    private final List<NodeRuntime> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(n -> n.stop(Duration.ofSeconds(5)));
    }

    private NodeRuntime start(InMemoryNetwork network, String name, ShardingStore store) throws Exception {
        // shards the tests make a region host behind the coordinator's back are not handed off when the node stops:
        // it waits for them no longer than this
        return WalletNodes.start(network, name, store, s -> s.withHandoffTimeout(Duration.ofSeconds(2)), nodes);
    }

    private static Region<Wallet> region(NodeRuntime node) {
        return WalletNodes.region(node);
    }

    private static void awaitServing(NodeRuntime... all) {
        WalletNodes.awaitServing(all);
    }

    @Test
    void commandsFromAMemberThatIsNotTheCoordinatorAreDroppedAndCounted() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        InMemoryShardingStore store = new InMemoryShardingStore();
        NodeRuntime a = start(network, "a", store);
        NodeRuntime b = start(network, "b", store);
        NodeRuntime c = start(network, "c", store);
        awaitServing(a, b, c);
        assertThat(a.isCoordinator()).isTrue();

        // b forges a HostShard with a huge epoch to c, and a ShardHome pointing to itself
        network.inject("b", "c", new HostShard("wallet", 3, Long.MAX_VALUE / 2, 0, List.of()));
        network.inject("b", "c", new ShardHome("wallet", 4, network.member("b")));
        Awaitility.await("both dropped and counted")
                .atMost(Duration.ofSeconds(10))
                .until(() -> c.traffic().droppedControlMessages() >= 2);
        assertThat(region(c).entityCounts()).doesNotContainKey(3);
        assertThat(region(c).homeOf(3)).isNull();
        assertThat(region(c).homeOf(4)).isNull();
    }

    @Test
    void aShardHomeNamingAMemberOutsideTheViewIsIgnored() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        InMemoryShardingStore store = new InMemoryShardingStore();
        NodeRuntime a = start(network, "a", store);
        NodeRuntime b = start(network, "b", store);
        awaitServing(a, b);
        Member ghost = new Member(42, 42, "ghost");
        network.inject("a", "b", new ShardHome("wallet", 5, ghost));
        // b asks for the entity of shard 5 and gets it from the real home, never from the ghost
        String id = idOfShard(5, 12);
        Wallet.Reply reply =
                region(b).ask(id, new Wallet.Deposit(1), Wallet.Reply.class).get(10, TimeUnit.SECONDS);
        assertThat(reply.node()).isIn("a", "b");
        assertThat(region(b).homeOf(5)).isNotEqualTo(ghost);
    }

    @Test
    void stateCarriedFromAnEarlierAllocationThanTheLastIsNotTrusted() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        InMemoryShardingStore store = new InMemoryShardingStore();
        NodeRuntime a = start(network, "a", store);
        awaitServing(a);
        JacksonMessageCodec codec = WalletNodes.codec();
        String stale = idOfShard(7, 12);
        String fresh = idOfShard(8, 12);
        // the store holds the newer state; the carried state is older
        long e7 = 0;
        long e8 = 0;
        for (int i = 0; i < 9; i++) {
            e7 = store.nextEpoch("wallet", 7).get();
            e8 = store.nextEpoch("wallet", 8).get();
        }
        store.write("wallet", stale, 7, e7, codec.encode(new Wallet.Balance(100, 10)))
                .get();
        byte[] old = codec.encode(new Wallet.Balance(1, 1));
        long epoch7 = store.nextEpoch("wallet", 7).get();
        long epoch8 = store.nextEpoch("wallet", 8).get();
        Region<Wallet> region = region(a);
        // shard 7: carried from epoch 5, but 9 allocations came between; shard 8: carried from the one before
        assertThat(a.control()
                        .submit(() -> region.hostShard(7, epoch7, 5, List.of(new EntityTransfer(stale, old, 1))))
                        .get(5, TimeUnit.SECONDS))
                .isTrue();
        assertThat(a.control()
                        .submit(() -> region.hostShard(
                                8,
                                epoch8,
                                epoch8 - 1,
                                List.of(new EntityTransfer(fresh, codec.encode(new Wallet.Balance(50, 5)), 5))))
                        .get(5, TimeUnit.SECONDS))
                .isTrue();
        assertThat(region.ask(stale, new Wallet.Read(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .as("state read from the store, not the stale carried state")
                .isEqualTo(100);
        assertThat(region.ask(fresh, new Wallet.Read(), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .as("state carried from the allocation just before")
                .isEqualTo(50);
    }

    @Test
    void aNodeOnAnotherStoreIsRefusedAtRegistration() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        NodeRuntime a = start(network, "a", new NamedStore("store-1"));
        awaitServing(a);
        NodeRuntime b = start(network, "b", new NamedStore("store-2"));
        Awaitility.await("b refused").atMost(Duration.ofSeconds(20)).until(() -> b.registrationRefused() != null);
        assertThat(b.registrationRefused()).contains("store-2").contains("store-1");
        assertThat(b.isRegistered()).isFalse();
        assertThat(a.isRegistered()).isTrue();
    }

    @Test
    void aNodeWithAnotherNumberOfShardsIsRefusedAtRegistration() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        InMemoryShardingStore store = new InMemoryShardingStore();
        NodeRuntime a = start(network, "a", store);
        awaitServing(a);
        ShardingSettings odd = ShardingSettings.defaults()
                .withNodeName("b")
                .withRetryInterval(Duration.ofMillis(100))
                .withEntity(
                        "wallet", EntityTypeSettings.builder().numberOfShards(7).build());
        NodeRuntime b = new NodeRuntime(
                odd,
                List.of(Wallet.type()),
                new LeastShardAllocationStrategy(),
                WalletNodes.codec(),
                network.transport("b"),
                store,
                null);
        b.start();
        nodes.add(b);
        Awaitility.await("b refused").atMost(Duration.ofSeconds(20)).until(() -> b.registrationRefused() != null);
        assertThat(b.registrationRefused()).contains("7").contains("12").contains("number-of-shards");
        assertThat(b.isRegistered()).isFalse();
    }

    @Test
    void aSecondClusterOfTheSameNameOnTheSameStoreAllocatesNothing() throws Exception {
        InMemoryShardingStore shared = new InMemoryShardingStore();
        NodeRuntime first = start(new InMemoryNetwork(), "first", shared);
        awaitServing(first);
        assertThat(region(first)
                        .ask("w-1", new Wallet.Deposit(1), Wallet.Reply.class)
                        .get(10, TimeUnit.SECONDS)
                        .amount())
                .isEqualTo(1);
        NodeRuntime second = start(new InMemoryNetwork(), "second", shared);
        CompletableFuture<Wallet.Reply> refused =
                region(second).ask("w-1", new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofSeconds(3));
        assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(AskTimeoutException.class);
        // once the first cluster stops, its lease ends and the second one takes over
        first.stop(Duration.ofSeconds(5));
        Awaitility.await("second cluster allocates")
                .atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> region(second)
                                .ask("w-1", new Wallet.Deposit(1), Wallet.Reply.class, Duration.ofSeconds(2))
                                .get(5, TimeUnit.SECONDS)
                                .amount()
                        == 2);
    }

    private static String idOfShard(int shard, int shards) {
        for (int i = 0; ; i++) {
            String id = "id-" + i;
            if (EntityType.shardOf(id, shards) == shard) {
                return id;
            }
        }
    }

    /** An in-memory store that claims an id, as a shared database would. */
    private static final class NamedStore extends ForwardingStore {

        private final String id;

        NamedStore(String id) {
            super(new InMemoryShardingStore());
            this.id = id;
        }

        @Override
        public CompletableFuture<Optional<String>> storeId() {
            return CompletableFuture.completedFuture(Optional.of(id));
        }
    }
}
