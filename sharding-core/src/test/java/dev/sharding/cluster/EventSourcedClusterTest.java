package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.AdminResult;
import dev.sharding.EntityException;
import dev.sharding.EntityTypeSettings;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.test.ForwardingStore;
import dev.sharding.test.HandOffs;
import dev.sharding.test.Passbook;
import dev.sharding.test.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Event-sourced entities: events persisted before the reply, numbered without gap, recovered after a crash from the
 * latest snapshot and the events after it, carried with their shard on a handoff without a replay, and nothing
 * stored for a message that failed or whose append failed.
 */
class EventSourcedClusterTest {

    private static final List<String> IDS =
            IntStream.range(0, 16).mapToObj(i -> "l-" + i).toList();

    /** Counts recoveries and can fail appends. */
    static final class JournalStore extends ForwardingStore {

        final AtomicLong recoveries = new AtomicLong();

        final AtomicBoolean failAppends = new AtomicBoolean();

        JournalStore() {
            super(new InMemoryShardingStore());
        }

        @Override
        public CompletableFuture<Recovery> recover(String typeName, String entityId) {
            recoveries.incrementAndGet();
            return super.recover(typeName, entityId);
        }

        @Override
        public CompletableFuture<Long> appendEvents(
                String typeName,
                String entityId,
                int shardId,
                long epoch,
                long expectedLastSequenceNr,
                List<dev.sharding.spi.NewEvent> events,
                byte[] applied,
                dev.sharding.spi.Snapshot snapshot) {
            if (failAppends.get()) {
                return CompletableFuture.failedFuture(new java.sql.SQLTransientConnectionException("store down"));
            }
            return super.appendEvents(
                    typeName, entityId, shardId, epoch, expectedLastSequenceNr, events, applied, snapshot);
        }

        List<PersistedEvent> events(String id) throws Exception {
            return eventsOf("passbook", id, 1, 1000).get(10, TimeUnit.SECONDS);
        }
    }

    private final JournalStore store = new JournalStore();

    private final TestCluster cluster = new TestCluster(s -> ShardingNode.builder(s.withEntity(
                    "passbook", EntityTypeSettings.builder().snapshotEvery(5).build()))
            .entityType(Passbook.type())
            .store(store));

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static Passbook.Reply ask(ShardingNode via, String id, Object message) throws Exception {
        return via.region(Passbook.class).ask(id, message, Passbook.Reply.class).get(30, TimeUnit.SECONDS);
    }

    @Test
    void eventsAreNumberedWithoutGapAndTheStateComesBackAfterACrashFromTheSnapshotAndTheEventsAfterIt()
            throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(3);
        ShardingNode via = nodes.get(0);
        for (String id : IDS) {
            for (int i = 1; i <= 7; i++) {
                Passbook.Reply r = ask(via, id, new Passbook.Deposit(i));
                assertThat(r.lastSequenceNr()).as("acknowledged once stored").isEqualTo(i);
            }
            ask(via, id, new Passbook.Withdraw(3));
        }
        for (String id : IDS) {
            List<PersistedEvent> events = store.events(id);
            assertThat(events).extracting(PersistedEvent::sequenceNr).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
            assertThat(events.get(0).eventType()).isEqualTo("deposited");
            assertThat(events.get(0).tags()).containsExactly("passbook-deposits");
            assertThat(events.get(7).eventType()).isEqualTo("Withdrawn");
            Recovery recovery = store.recover("passbook", id).get(10, TimeUnit.SECONDS);
            assertThat(recovery.snapshot()).as("a snapshot every 5 events").isNotNull();
            assertThat(recovery.snapshot().sequenceNr()).isEqualTo(5);
            assertThat(recovery.events()).extracting(PersistedEvent::sequenceNr).containsExactly(6L, 7L, 8L);
        }
        ShardingNode victim = nodes.get(2);
        assertThat(IDS.stream().filter(id -> owns(victim, id))).isNotEmpty();
        cluster.awaitStable(); // a member lost right after a join cannot be told from a split
        long recoveriesBefore = store.recoveries.get();
        victim.crash();
        cluster.awaitConverged();
        for (String id : IDS) {
            Passbook.Reply r = ask(via, id, new Passbook.Read());
            assertThat(r.amount()).as(id).isEqualTo(28 - 3);
            assertThat(r.entries()).isEqualTo(8);
            assertThat(r.lastSequenceNr()).isEqualTo(8);
            assertThat(r.node()).isNotEqualTo(victim.nodeName());
        }
        assertThat(store.recoveries.get() - recoveriesBefore)
                .as("the crashed node's entities recovered from the journal")
                .isPositive();
    }

    @Test
    void aHandoffCarriesTheStateWithItsShardWithoutAReplay() throws Exception {
        List<ShardingNode> nodes = cluster.startNodes(2);
        ShardingNode via = nodes.get(0);
        for (String id : IDS) {
            ask(via, id, new Passbook.DepositMany(2, 3));
        }
        long recoveriesBefore = store.recoveries.get();
        for (int shard = 0; shard < 12; shard++) {
            int s = shard;
            ShardingNode owner = nodes.stream()
                    .filter(n -> n.localRegion("passbook").entityIds().containsKey(s))
                    .findFirst()
                    .orElse(null);
            if (owner == null) {
                continue;
            }
            ShardingNode target = owner == nodes.get(0) ? nodes.get(1) : nodes.get(0);
            AdminResult moved = HandOffs.handOff(via, "passbook", shard, target.nodeName());
            assertThat(moved.accepted()).as(moved.message()).isTrue();
            Awaitility.await("shard " + shard + " on " + target.nodeName())
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> target.localRegion("passbook").entityIds().containsKey(s));
        }
        for (String id : IDS) {
            Passbook.Reply r = ask(via, id, new Passbook.Deposit(1));
            assertThat(r.amount()).as(id).isEqualTo(7);
            assertThat(r.lastSequenceNr()).isEqualTo(4);
        }
        assertThat(store.recoveries.get() - recoveriesBefore)
                .as("no recovery from the journal: the state travelled with the shards")
                .isZero();
    }

    @Test
    void aFailedHandlerOrAFailedAppendStoresNothingAndTheNextEventTakesTheNextNumber() throws Exception {
        ShardingNode node = cluster.startNode();
        ShardRegion<Passbook> region = node.region(Passbook.class);
        ask(node, "f-1", new Passbook.Deposit(10));

        assertThatThrownBy(() -> region.ask("f-1", new Passbook.DepositTwiceThenFail(5), Passbook.Reply.class)
                        .get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(EntityException.class);
        assertThatThrownBy(() -> region.ask("f-1", new Passbook.Withdraw(100), Passbook.Reply.class)
                        .get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(EntityException.class);
        store.failAppends.set(true);
        assertThatThrownBy(() -> region.ask("f-1", new Passbook.Deposit(7), Passbook.Reply.class)
                        .get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);
        store.failAppends.set(false);

        Passbook.Reply r = ask(node, "f-1", new Passbook.Read());
        assertThat(r.amount()).as("back to what is stored").isEqualTo(10);
        assertThat(r.lastSequenceNr()).isEqualTo(1);
        assertThat(ask(node, "f-1", new Passbook.Deposit(1)).lastSequenceNr()).isEqualTo(2);
        assertThat(store.events("f-1")).extracting(PersistedEvent::sequenceNr).containsExactly(1L, 2L);
    }

    @Test
    void aRetryWithTheSameMessageIdIsAnsweredFromTheRecordAndPersistsNothing() throws Exception {
        ShardingNode node = cluster.startNode();
        ShardRegion<Passbook> region = node.region(Passbook.class);
        Passbook.Reply first = region.ask(
                        "i-1", new Passbook.Deposit(4), Passbook.Reply.class, Duration.ofSeconds(10), "m-1")
                .get(10, TimeUnit.SECONDS);
        Passbook.Reply again = region.ask(
                        "i-1", new Passbook.Deposit(4), Passbook.Reply.class, Duration.ofSeconds(10), "m-1")
                .get(10, TimeUnit.SECONDS);
        assertThat(again).isEqualTo(first);
        ask(node, "i-1", new Passbook.Rest());
        Awaitility.await("passivated")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !node.localRegion("passbook").entityIds().values().stream()
                        .anyMatch(ids -> ids.contains("i-1")));
        Passbook.Reply afterPassivation = region.ask(
                        "i-1", new Passbook.Deposit(4), Passbook.Reply.class, Duration.ofSeconds(10), "m-1")
                .get(10, TimeUnit.SECONDS);
        assertThat(afterPassivation.amount()).isEqualTo(4);
        assertThat(store.events("i-1")).hasSize(1);
    }

    @Test
    void aNodeWhoseStoreKeepsNoJournalRefusesAnEventSourcedType() {
        ShardingStore noJournal = new ForwardingStore(new InMemoryShardingStore()) {
            @Override
            public java.util.Set<Capability> capabilities() {
                return java.util.Set.of(Capability.APPLIED_MESSAGES);
            }
        };
        assertThatThrownBy(() -> ShardingNode.builder(cluster.settings("x"))
                        .entityType(Passbook.type())
                        .store(noJournal)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("passbook is event-sourced")
                .hasMessageContaining("EVENT_JOURNAL");
        assertThatThrownBy(() -> ShardingNode.builder(cluster.settings("y"))
                        .entityType(dev.sharding.EntityType.of(Passbook.class, Passbook::new)
                                .withEvents(Passbook.Event.class))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("declares events")
                .hasMessageContaining("no state");
    }

    private static boolean owns(ShardingNode node, String id) {
        return node.localRegion("passbook").entityIds().values().stream().anyMatch(ids -> ids.contains(id));
    }
}
