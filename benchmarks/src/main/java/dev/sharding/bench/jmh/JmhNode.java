package dev.sharding.bench.jmh;

import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingSettings;
import dev.sharding.bench.Add;
import dev.sharding.bench.Total;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.node.NodeRuntime;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.store.InMemoryShardingStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A started {@link NodeRuntime} running {@link JmhCounter} over a {@link FakeTransport}, with 1,000 entity ids
 * {@code "e-" + i} whose shards' homes are known: either all on this node ({@link #alone()}), or all on the other
 * node the transport plays ({@link #withRemoteHost()}).
 */
public final class JmhNode implements AutoCloseable {

    /** The number of entities. */
    public static final int ENTITIES = 1_000;

    /** This node. */
    public static final Member SELF = new Member(3, 4, "jmh-a");

    /** The other node, when there is one. */
    public static final Member REMOTE = new Member(1, 2, "jmh-b");

    private final NodeRuntime runtime;

    private final FakeTransport transport;

    private final ShardRegion<JmhCounter> region;

    private final ProtocolCodec protocol;

    private final JacksonMessageCodec codec;

    private final String[] ids = new String[ENTITIES];

    private final Add[] adds = new Add[ENTITIES];

    private JmhNode(boolean remote) throws Exception {
        ShardingSettings settings = ShardingSettings.defaults().withClusterName("jmh");
        EntityType<JmhCounter> type = EntityType.of(JmhCounter.class, JmhCounter::new);
        this.codec =
                new JacksonMessageCodec(EntityHandlers.of(JmhCounter.class).declaredTypes(), settings.maxPayloadSize());
        this.protocol = new ProtocolCodec(settings.maxPayloadSize());
        this.transport = new FakeTransport(SELF, remote ? REMOTE : null, protocol, codec);
        this.runtime = new NodeRuntime(
                settings,
                List.of(type),
                new LeastShardAllocationStrategy(),
                codec,
                transport,
                new InMemoryShardingStore(),
                null);
        runtime.start();
        @SuppressWarnings("unchecked")
        ShardRegion<JmhCounter> r = (ShardRegion<JmhCounter>) runtime.regions().get(type.name());
        this.region = r;
        for (int i = 0; i < ENTITIES; i++) {
            ids[i] = "e-" + i;
            adds[i] = new Add(ids[i], 1);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!runtime.isRegistered()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The node did not register");
            }
            Thread.sleep(5);
        }
        // one ask per entity: every shard gets its home, every entity its instance
        for (int i = 0; i < ENTITIES; i++) {
            region.ask(ids[i], adds[i], Total.class, Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A node alone in its cluster, hosting every shard.
     *
     * @return the started node
     * @throws Exception if it does not start
     */
    public static JmhNode alone() throws Exception {
        return new JmhNode(false);
    }

    /**
     * A node whose shards all live on the other node the transport plays.
     *
     * @return the started node
     * @throws Exception if it does not start
     */
    public static JmhNode withRemoteHost() throws Exception {
        return new JmhNode(true);
    }

    /** The region of {@link JmhCounter}. @return the region */
    public ShardRegion<JmhCounter> region() {
        return region;
    }

    /** The runtime, for frames from the other node. @return the runtime */
    public NodeRuntime runtime() {
        return runtime;
    }

    /** The transport. @return the transport */
    public FakeTransport transport() {
        return transport;
    }

    /** The protocol codec. @return the codec */
    public ProtocolCodec protocol() {
        return protocol;
    }

    /** The message codec. @return the codec */
    public JacksonMessageCodec codec() {
        return codec;
    }

    /** The entity ids. @return {@code "e-" + i} */
    public String[] ids() {
        return ids;
    }

    /** One {@link Add} of 1 per entity, made once. @return the messages */
    public Add[] adds() {
        return adds;
    }

    /** The declared message types. @return the types */
    public static Set<Class<?>> messageTypes() {
        return EntityHandlers.of(JmhCounter.class).declaredTypes();
    }

    @Override
    public void close() {
        runtime.stop(Duration.ofSeconds(5));
    }
}
