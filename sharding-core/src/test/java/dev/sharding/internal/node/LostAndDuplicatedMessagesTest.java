package dev.sharding.internal.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.test.Counter;
import dev.sharding.test.InMemoryNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The protocol over an in-memory network that loses or repeats chosen control messages: every request is repeated
 * until answered and every duplicate changes nothing, so entities still get exactly one home.
 */
class LostAndDuplicatedMessagesTest {

    private final InMemoryNetwork network = new InMemoryNetwork();

    private final List<NodeRuntime> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(n -> n.stop(Duration.ofSeconds(5)));
    }

    private NodeRuntime start(String name) throws Exception {
        ShardingSettings settings =
                ShardingSettings.defaults().withNodeName(name).withRetryInterval(Duration.ofMillis(100));
        EntityType<Counter> type = Counter.type();
        NodeRuntime node = new NodeRuntime(
                settings,
                List.of(type),
                new LeastShardAllocationStrategy(),
                new JacksonMessageCodec(EntityHandlers.of(Counter.class).declaredTypes(), 1 << 20),
                network.transport(name),
                new dev.sharding.store.InMemoryShardingStore(),
                null);
        node.start();
        nodes.add(node);
        return node;
    }

    @SuppressWarnings("unchecked")
    private static ShardRegion<Counter> region(NodeRuntime node) {
        return (ShardRegion<Counter>) node.regions().get("counter");
    }

    @Test
    void lostControlMessagesAreRepeatedAndDuplicatesChangeNothing() throws Exception {
        network.drop("register", 2, m -> m instanceof Register);
        network.drop("ack", 1, m -> m instanceof RegisterAck);
        network.drop("get-home", 5, m -> m instanceof GetShardHome);
        network.drop("host", 3, m -> m instanceof HostShard);
        network.drop("started", 3, m -> m instanceof ShardStarted);
        network.drop("home", 3, m -> m instanceof ShardHome);
        network.duplicate("host-twice", 5, m -> m instanceof HostShard);
        network.duplicate("home-twice", 5, m -> m instanceof ShardHome);
        network.duplicate("started-twice", 5, m -> m instanceof ShardStarted);

        NodeRuntime a = start("a");
        NodeRuntime b = start("b");
        NodeRuntime c = start("c");
        Awaitility.await("all registered")
                .atMost(Duration.ofSeconds(20))
                .until(() -> a.isRegistered() && b.isRegistered() && c.isRegistered());

        Map<String, String> homes = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            NodeRuntime via = nodes.get(i % 3);
            Counter.Total t = region(via)
                    .ask("m-" + i, new Counter.Add(1), Counter.Total.class)
                    .get(20, TimeUnit.SECONDS);
            homes.put("m-" + i, t.node());
        }
        for (NodeRuntime via : nodes) {
            for (Map.Entry<String, String> e : homes.entrySet()) {
                Counter.Total t = region(via)
                        .ask(e.getKey(), new Counter.Get(), Counter.Total.class)
                        .get(20, TimeUnit.SECONDS);
                assertThat(t.node()).isEqualTo(e.getValue());
                assertThat(t.total())
                        .as("one instance of %s, all messages in it", e.getKey())
                        .isEqualTo(1);
            }
        }
        for (String rule : List.of("register", "get-home", "host", "started", "home", "host-twice")) {
            assertThat(network.dropped(rule)).as("rule %s was exercised", rule).isPositive();
        }
    }
}
