package dev.sharding.internal.node;

import dev.sharding.EntityType;
import dev.sharding.ShardingSettings;
import dev.sharding.UndecodableTypeException;
import dev.sharding.internal.codec.CodecCheck;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.transport.JGroupsTransport;
import dev.sharding.internal.transport.JdbcDiscovery;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.store.JdbcShardingStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jgroups.JChannel;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code ShardingNode.Builder} was given, and the node's runtime put together from it: the codec (checked against
 * every declared class first), the JGroups transport with its discovery, the store and the runtime.
 */
public final class NodeAssembly {

    private static final Logger LOG = LoggerFactory.getLogger(NodeAssembly.class);

    private final ShardingSettings settings;

    private final List<EntityType<?>> types = new ArrayList<>();

    private final Set<Class<?>> messageTypes = new LinkedHashSet<>();

    private ShardAllocationStrategy strategy = new LeastShardAllocationStrategy();

    private @Nullable MessageCodec codec;

    private @Nullable ExecutorService executor;

    private @Nullable Executor callbackExecutor;

    private ShardingStore store = new InMemoryShardingStore();

    private Consumer<JChannel> channelCustomizer = ch -> {};

    private @Nullable JdbcDiscovery jdbcDiscovery;

    private boolean serializeLocalMessages;

    private ShardingMetrics metrics = ShardingMetrics.NONE;

    private MessageTracing tracing = MessageTracing.NONE;

    /**
     * Starts with the defaults: no entity type, the least-shard strategy, the default codec and executor, a store in
     * memory.
     *
     * @param settings the settings
     */
    public NodeAssembly(ShardingSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** @param type an entity type to run */
    public void entityType(EntityType<?> type) {
        types.add(Objects.requireNonNull(type));
    }

    /** @param classes more classes that may cross the network */
    public void messageTypes(Collection<Class<?>> classes) {
        messageTypes.addAll(classes);
    }

    /** @param value the allocation strategy */
    public void allocationStrategy(ShardAllocationStrategy value) {
        this.strategy = Objects.requireNonNull(value);
    }

    /** @param value the codec instead of the default one */
    public void codec(MessageCodec value) {
        this.codec = value;
    }

    /** @param value the entity executor instead of a pool of the node's own */
    public void executor(ExecutorService value) {
        this.executor = value;
    }

    /** @param value where the stages callers chain on an ask's future run, instead of the entity executor */
    public void callbackExecutor(Executor value) {
        this.callbackExecutor = Objects.requireNonNull(value);
    }

    /** @param value the store */
    public void store(ShardingStore value) {
        this.store = Objects.requireNonNull(value);
    }

    /** @param value changes the JGroups channel before it connects */
    public void channelCustomizer(Consumer<JChannel> value) {
        this.channelCustomizer = Objects.requireNonNull(value);
    }

    /** @param value whether local deliveries go through the codec and back, as between nodes */
    public void serializeLocalMessages(boolean value) {
        this.serializeLocalMessages = value;
    }

    /** @param value where the node's counts and times go */
    public void metrics(ShardingMetrics value) {
        this.metrics = Objects.requireNonNull(value);
    }

    /** @param value how the node traces messages */
    public void tracing(MessageTracing value) {
        this.tracing = Objects.requireNonNull(value);
    }

    /**
     * @param dataSource where JDBC discovery keeps its table
     * @param tablePrefix prepended to the table name
     */
    public void discoveryDatabase(DataSource dataSource, String tablePrefix) {
        this.jdbcDiscovery = new JdbcDiscovery(dataSource, tablePrefix + "discovery");
    }

    /** {@return the declared message, reply and state types of the entity types so far, plus the extra ones} */
    public Set<Class<?>> declaredTypes() {
        Set<Class<?>> all = new LinkedHashSet<>(messageTypes);
        for (EntityType<?> t : types) {
            all.addAll(EntityHandlers.of(t.entityClass()).declaredTypes());
            all.addAll(t.messageTypes());
            if (t.stateType() != null) {
                all.add(t.stateType());
            }
        }
        return all;
    }

    /**
     * Checks an event-sourced type: it declares its state, the store keeps journals, its event classes have distinct
     * stored names and its upcasters read known versions, and each event class comes back from the journal's codec as
     * it was stored.
     *
     * @return the event classes that do not come back, with why
     */
    private Map<Class<?>, String> checkEvents(EntityType<?> t) {
        Class<?> eventType = t.eventType();
        if (eventType == null) {
            return Map.of();
        }
        if (t.stateType() == null) {
            throw new IllegalArgumentException("Entity type " + t.name() + " declares events (" + eventType.getName()
                    + ") but no state: an event-sourced type declares the state its events fold into"
                    + " (EntityType.withState)");
        }
        if (!store.capabilities().contains(ShardingStore.Capability.EVENT_JOURNAL)) {
            throw new IllegalStateException("Entity type " + t.name() + " is event-sourced, but the store "
                    + store.getClass().getName() + " keeps no event journal (capability EVENT_JOURNAL): use the JDBC"
                    + " store (H2 or PostgreSQL) or the in-memory one");
        }
        EventCodec events = new EventCodec(t.name(), eventType, t.eventUpcasters(), settings.maxPayloadSize());
        return CodecCheck.check(events.asMessageCodec(), events.eventClasses());
    }

    /**
     * Builds a node's runtime (not started). Every declared message, reply and state class is first sent through the
     * codec and back, with a value in each field, so that a class the codec cannot carry between nodes fails here
     * rather than once its entity lives on another node.
     *
     * @return the runtime
     * @throws UndecodableTypeException if a declared class does not come back from the codec as it was sent
     */
    public NodeRuntime runtime() {
        settings.validate();
        Set<Class<?>> declared = declaredTypes();
        MessageCodec c = codec != null ? codec : new JacksonMessageCodec(declared, settings.maxPayloadSize());
        Map<Class<?>, String> undecodable = new LinkedHashMap<>(CodecCheck.check(c, declared));
        for (EntityType<?> t : types) {
            undecodable.putAll(checkEvents(t));
        }
        if (!undecodable.isEmpty()) {
            throw new UndecodableTypeException(undecodable);
        }
        if (codec == null) {
            for (EntityType<?> t : types) {
                EntityHandlers.of(t.entityClass())
                        .undeclaredParameters(declared)
                        .forEach(LOG::warn);
            }
        }
        JdbcDiscovery jdbc = jdbcDiscovery;
        if (metrics != ShardingMetrics.NONE) {
            store.recordBatchesIn(metrics);
        }
        if (jdbc == null && store instanceof JdbcShardingStore jdbcStore) {
            jdbc = new JdbcDiscovery(jdbcStore.dataSource(), jdbcStore.tablePrefix() + "discovery");
        }
        ShardingSettings withDaemons = settings;
        for (EntityType<?> t : types) {
            if (DaemonWorker.isDaemon(t)) {
                // a worker starts again wherever its shard goes, and is never passivated
                withDaemons = withDaemons.withEntity(
                        t.name(),
                        withDaemons.entity(t.name()).toBuilder()
                                .rememberEntities(true)
                                .build());
            }
        }
        return new NodeRuntime(
                withDaemons,
                types,
                strategy,
                c,
                new JGroupsTransport(settings, channelCustomizer, jdbc),
                store,
                executor,
                callbackExecutor,
                serializeLocalMessages,
                metrics,
                tracing);
    }
}
