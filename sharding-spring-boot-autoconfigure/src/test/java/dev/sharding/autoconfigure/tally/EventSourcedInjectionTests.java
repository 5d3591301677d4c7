package dev.sharding.autoconfigure.tally;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingNode;
import dev.sharding.StoredEvent;
import dev.sharding.autoconfigure.actuate.DaemonProcessDescriptor;
import dev.sharding.autoconfigure.actuate.ShardingEndpoint;
import dev.sharding.autoconfigure.bank.BankCluster;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.spi.NewEvent;
import dev.sharding.spi.ShardingStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code EventSourcedState<S, E>} constructor parameters of {@code @ShardedEntity} beans: the state and event types
 * come from the generic types, the initial state from {@code @InitialState}, the fold from {@code @ApplyEvent}, the
 * upcasters of the type's events from the context's {@code EventUpcaster} beans; the state recovers from the journal
 * after a passivation and moves with its shard without a replay.
 */
class EventSourcedInjectionTests {

    private final BankCluster cluster = new BankCluster(TallyApplication.class);

    /** Both nodes share one embedded H2 file, so that the journal of one is the other's. */
    @TempDir
    Path data;

    private ConfigurableApplicationContext start(String name) {
        return cluster.start(
                name, "--sharding.store.type=jdbc", "--sharding.store.embedded-path=" + data.resolve("db"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @SuppressWarnings("unchecked")
    private static ShardRegion<Tally> tallies(ConfigurableApplicationContext context) {
        return (ShardRegion<Tally>)
                context.getBeanProvider(ResolvableType.forClassWithGenerics(ShardRegion.class, Tally.class))
                        .getObject();
    }

    private static Tally.Reply ask(ShardRegion<Tally> region, String id, Object message) throws Exception {
        return region.ask(id, message, Tally.Reply.class).get(10, TimeUnit.SECONDS);
    }

    @Test
    void theTypeIsDeclaredFromTheConstructorAndItsStateRecoversAndMoves() throws Exception {
        ConfigurableApplicationContext n1 = start("n1");
        @SuppressWarnings("unchecked")
        EntityType<Tally> type = (EntityType<Tally>)
                n1.getBeanProvider(ResolvableType.forClassWithGenerics(EntityType.class, Tally.class))
                        .getObject();
        assertThat(type.stateType()).isEqualTo(Tally.Count.class);
        assertThat(type.eventType()).isEqualTo(Tally.Event.class);
        assertThat(type.eventNames()).containsExactlyInAnyOrder("marked", "Cleared");
        assertThat(type.eventUpcasters())
                .as("only the upcasters of the type's events")
                .singleElement()
                .isInstanceOf(Tally.MarkedV1.class);

        ShardRegion<Tally> tallies = tallies(n1);
        assertThat(ask(tallies, "t-1", new Tally.Mark(5)).total())
                .as("initial state from @InitialState, folded by @ApplyEvent")
                .isEqualTo(105);
        ask(tallies, "t-1", new Tally.Mark(2));
        ask(tallies, "t-1", new Tally.Rest());
        ShardingNode node = n1.getBean(ShardingNode.class);
        Awaitility.await("passivated")
                .atMost(Duration.ofSeconds(10))
                .until(() -> node.localRegion("tally").activeEntities() == 0);
        Tally.Reply recovered = ask(tallies, "t-1", new Tally.Look());
        assertThat(recovered.total()).as("replayed from the journal").isEqualTo(107);
        assertThat(recovered.lastSequenceNr()).isEqualTo(2);

        ConfigurableApplicationContext n2 = start("n2");
        String other = recovered.node().equals("n1") ? "n2" : "n1";
        assertThat(node.admin()
                        .handOff("tally", EntityType.shardOf("t-1", 10), other)
                        .get(10, TimeUnit.SECONDS)
                        .accepted())
                .isTrue();
        Awaitility.await("moved")
                .atMost(Duration.ofSeconds(30))
                .until(() -> ask(tallies, "t-1", new Tally.Look()).node().equals(other));
        Tally.Reply moved = ask(tallies(n2), "t-1", new Tally.Mark(1));
        assertThat(moved.total()).as("the state moved with its shard").isEqualTo(108);
        assertThat(moved.lastSequenceNr()).isEqualTo(3);
    }

    @Test
    void theEndpointShowsWhereTheProjectionsWorkersRunAndThatTheyCaughtUp() throws Exception {
        ConfigurableApplicationContext n1 = start("n1");
        ShardRegion<Tally> tallies = tallies(n1);
        for (int i = 0; i < 8; i++) {
            ask(tallies, "v-" + i, new Tally.Mark(1));
        }
        ShardingEndpoint endpoint = n1.getBean(ShardingEndpoint.class);
        Awaitility.await("both slices of tally-view on n1 and caught up")
                .atMost(Duration.ofSeconds(30))
                .until(() -> endpoint.cluster().daemonProcesses().stream()
                                .filter(d -> d.name().equals("tally-view"))
                                .flatMap(d -> d.workers().stream())
                                .filter(w -> "n1".equals(w.node()) && w.oldestUnhandled() == null && w.lagMillis() == 0)
                                .count()
                        == 2);
        DaemonProcessDescriptor view = endpoint.cluster().daemonProcesses().get(0);
        assertThat(view.projectionOf()).isEqualTo("tally");
        assertThat(view.count()).isEqualTo(2);
        assertThat(view.workers())
                .extracting(DaemonProcessDescriptor.WorkerDescriptor::firstShard)
                .containsExactly(0, 5);
        assertThat(view.workers())
                .extracting(DaemonProcessDescriptor.WorkerDescriptor::lastShard)
                .containsExactly(4, 9);
        assertThat(view.workers().stream()
                        .mapToLong(DaemonProcessDescriptor.WorkerDescriptor::offset)
                        .max()
                        .orElse(0))
                .as("the offset of the slice furthest on")
                .isPositive();
        String json = JsonMapper.builder().build().writeValueAsString(endpoint.cluster());
        assertThat(json)
                .contains("\"daemonProcesses\":[{\"name\":\"tally-view\",\"count\":2,\"projectionOf\":\"tally\"");
    }

    /** A mark as version 1 stored it. @param count how much */
    @StoredEvent(name = "marked")
    record OldMark(long count) {}

    @Test
    void anEventStoredAtAnOlderVersionIsUpcastByTheBean() throws Exception {
        ConfigurableApplicationContext n1 = start("n1");
        ShardingStore store = n1.getBean(ShardingStore.class);
        byte[] v1 = new EventCodec("tally", OldMark.class, List.of(), 65536)
                .encode(new OldMark(40), Set.of())
                .payload();
        int shard = EntityType.shardOf("old-1", 10);
        long epoch = store.nextEpoch("tally", shard).get(10, TimeUnit.SECONDS);
        store.appendEvents(
                        "tally", "old-1", shard, epoch, 0, List.of(new NewEvent("marked", 1, v1, Set.of())), null, null)
                .get(10, TimeUnit.SECONDS);

        Tally.Reply r = ask(tallies(n1), "old-1", new Tally.Look());

        assertThat(r.total())
                .as("100 + the old mark of 40, read through MarkedV1")
                .isEqualTo(140);
        assertThat(r.lastSequenceNr()).isEqualTo(1);
    }
}
