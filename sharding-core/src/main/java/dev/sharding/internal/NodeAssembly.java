package dev.sharding.internal;

import dev.sharding.EntityType;
import dev.sharding.ShardingSettings;
import dev.sharding.UndecodableTypeException;
import dev.sharding.internal.codec.CodecCheck;
import dev.sharding.internal.codec.JacksonMessageCodec;
import dev.sharding.internal.transport.JGroupsTransport;
import dev.sharding.internal.transport.JdbcDiscovery;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.JdbcShardingStore;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import org.jgroups.JChannel;
import org.jspecify.annotations.Nullable;

/**
 * Puts a node together from what {@code ShardingNode.Builder} collected: the codec (checked against every declared
 * class first), the JGroups transport with its discovery, the store and the runtime.
 */
public final class NodeAssembly {

    private NodeAssembly() {}

    /**
     * Builds a node's runtime (not started). Every declared message, reply and state class is first sent through the
     * codec and back, with a value in each field, so that a class the codec cannot carry between nodes fails here
     * rather than once its entity lives on another node.
     *
     * @param settings the settings, validated here
     * @param types the entity types
     * @param declared every class that may cross the network
     * @param strategy the allocation strategy
     * @param codec the codec, or {@code null} for Jackson Smile over the declared classes
     * @param executor the entity executor, or {@code null} for a pool of the node's own
     * @param store the store
     * @param channelCustomizer changes the JGroups channel before it connects
     * @param jdbcDiscovery where JDBC discovery keeps its table, or {@code null} for the JDBC store's database
     * @return the runtime
     * @throws UndecodableTypeException if a declared class does not come back from the codec as it was sent
     */
    public static NodeRuntime runtime(
            ShardingSettings settings,
            List<EntityType<?>> types,
            Set<Class<?>> declared,
            ShardAllocationStrategy strategy,
            @Nullable MessageCodec codec,
            @Nullable ExecutorService executor,
            ShardingStore store,
            Consumer<JChannel> channelCustomizer,
            @Nullable JdbcDiscovery jdbcDiscovery) {
        settings.validate();
        MessageCodec c = codec != null ? codec : new JacksonMessageCodec(declared, settings.maxPayloadSize());
        Map<Class<?>, String> undecodable = CodecCheck.check(c, declared);
        if (!undecodable.isEmpty()) {
            throw new UndecodableTypeException(undecodable);
        }
        JdbcDiscovery jdbc = jdbcDiscovery;
        if (jdbc == null && store instanceof JdbcShardingStore jdbcStore) {
            jdbc = new JdbcDiscovery(jdbcStore.dataSource(), jdbcStore.tablePrefix() + "discovery");
        }
        return new NodeRuntime(
                settings, types, strategy, c, new JGroupsTransport(settings, channelCustomizer, jdbc), store, executor);
    }
}
