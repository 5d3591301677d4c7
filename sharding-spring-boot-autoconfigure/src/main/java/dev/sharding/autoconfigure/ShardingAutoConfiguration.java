package dev.sharding.autoconfigure;

import dev.sharding.EntityType;
import dev.sharding.InvalidSettingException;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.spi.ShardingStore;
import java.util.Set;
import java.util.TreeSet;
import org.jgroups.JChannel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of a sharding node: binds {@link ShardingProperties}, makes every {@code @ShardedEntity} class an
 * entity type whose instances are prototype beans, builds the {@link ShardingNode} with them, registers a
 * {@code ShardRegion<EntityClass>} bean per type and joins the cluster when the context starts
 * ({@link ShardingLifecycle}). With {@code sharding.store.remove-sharding-data=true} the node is built but not
 * started: the application removes the stored sharding data of the stopped cluster and stops
 * ({@link ShardingDataRemovalRunner}).
 *
 * <p>Extension points are beans: {@link ShardingSettingsCustomizer}, {@link JChannelCustomizer} and
 * {@link ShardingNodeCustomizer}. Switched off by {@code sharding.enabled=false}; every bean backs off when the
 * application defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(JChannel.class)
@ConditionalOnShardingEnabled
@EnableConfigurationProperties(ShardingProperties.class)
@Import({
    ShardingStoreConfigurations.InMemory.class,
    ShardingStoreConfigurations.ApplicationDataSource.class,
    ShardingStoreConfigurations.EmbeddedH2.class,
    ShardingStoreConfigurations.JdbcDiscovery.class
})
public final class ShardingAutoConfiguration {

    /** The property that runs the removal of the stored sharding data instead of a node. */
    private static final String REMOVE_SHARDING_DATA = "sharding.store.remove-sharding-data";

    /**
     * Finds the entity classes and registers their bean definitions; static because it runs before any other bean
     * of this class can be made.
     *
     * @return the registrar
     */
    @Bean
    @ConditionalOnMissingBean
    static ShardedEntityRegistrar shardedEntityRegistrar() {
        return new ShardedEntityRegistrar();
    }

    /**
     * Lets the sharding shutdown phase last as long as a graceful leave may take.
     *
     * @param environment the environment, for {@code sharding.handoff-timeout}
     * @return the post-processor
     */
    @Bean
    static ShutdownPhaseTimeoutPostProcessor shardingShutdownPhaseTimeout(Environment environment) {
        return new ShutdownPhaseTimeoutPostProcessor(environment);
    }

    /**
     * The settings: the bound properties, changed by the settings customizers, validated.
     *
     * @param properties the bound properties
     * @param customizers the settings customizers
     * @return the settings
     */
    @Bean
    @ConditionalOnMissingBean
    ShardingSettings shardingSettings(
            ShardingProperties properties, ObjectProvider<ShardingSettingsCustomizer> customizers) {
        try {
            ShardingSettings settings = properties.toSettings();
            for (ShardingSettingsCustomizer customizer :
                    customizers.orderedStream().toList()) {
                settings = customizer.customize(settings);
            }
            return settings.validate();
        } catch (InvalidSettingException e) {
            String property = propertyName(e.setting());
            if (isSecret(property)) {
                // Boot's report of an invalid property prints the value it finds in the environment
                throw new ShardingConfigurationException(
                        "The value of configuration property '" + property + "' is invalid: " + e.rule(),
                        "Review the value of the property " + property + " (not shown here: it is a secret).",
                        null);
            }
            throw new InvalidConfigurationPropertyValueException(property, e.value(), e.rule());
        }
    }

    /** Whether a property holds a secret, whose value no report may show. */
    static boolean isSecret(String property) {
        return property.endsWith(".secret") || property.endsWith(".password");
    }

    /**
     * The node, not yet started: every entity type bean, the extra message types, the channel customizers and then
     * the node customizers.
     *
     * @param settings the settings
     * @param properties the bound properties, for the extra message types
     * @param store the store ({@link ShardingStoreConfigurations})
     * @param discoveryDatabase the JDBC store's database, for JGroups' JDBC discovery, if the store is one
     * @param entityTypes the entity types, one per {@code @ShardedEntity} class
     * @param channelCustomizers applied to the channel before it connects
     * @param nodeCustomizers applied to the builder last
     * @return the node
     */
    @Bean
    @ConditionalOnMissingBean
    ShardingNode shardingNode(
            ShardingSettings settings,
            ShardingProperties properties,
            ShardingStore store,
            ObjectProvider<ShardingDiscoveryDatabase> discoveryDatabase,
            ObjectProvider<EntityType<?>> entityTypes,
            ObjectProvider<JChannelCustomizer> channelCustomizers,
            ObjectProvider<ShardingNodeCustomizer> nodeCustomizers) {
        ShardingNode.Builder builder = ShardingNode.builder(settings).store(store);
        discoveryDatabase.ifAvailable(db -> builder.discoveryDatabase(db.dataSource(), db.tablePrefix()));
        entityTypes.orderedStream().forEach(builder::entityType);
        builder.messageTypes(properties.getMessageTypes());
        builder.channelCustomizer(
                channel -> channelCustomizers.orderedStream().forEach(customizer -> customizer.customize(channel)));
        nodeCustomizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        ShardingNode node = build(builder);
        checkEntitySettings(settings, node.typeNames());
        return node;
    }

    /**
     * Builds the node; what does not fit it (a projection that writes in the JDBC store's transactions on a node whose
     * store is in memory, more slices than shards) is reported as a startup failure with its reason, not a stack trace.
     * Subclasses of {@link IllegalArgumentException} have reports of their own and pass unchanged.
     */
    private static ShardingNode build(ShardingNode.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            if (e.getClass() != IllegalArgumentException.class) {
                throw e;
            }
            throw new ShardingConfigurationException(
                    "The sharding node cannot be built: " + e.getMessage(),
                    "Change the entity type or daemon process the description names as it says, or leave its bean out"
                            + " of this application.",
                    e);
        }
    }

    /**
     * Starts the node with the context and stops it gracefully when the context closes.
     *
     * @param node the node
     * @param settings its settings
     * @return the lifecycle
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = REMOVE_SHARDING_DATA, havingValue = false, matchIfMissing = true)
    ShardingLifecycle shardingLifecycle(ShardingNode node, ShardingSettings settings) {
        return new ShardingLifecycle(node, settings);
    }

    /**
     * Instead of starting the node, removes the stored sharding data of the cluster when
     * {@code sharding.store.remove-sharding-data} is true.
     *
     * @param settings the settings, for the cluster name and JGroups configuration
     * @param store the store the node would use
     * @param discoveryDatabase the JDBC store's database, for JGroups' JDBC discovery, if the store is one
     * @param channelCustomizers applied to the probe's channel as to the node's
     * @return the runner
     */
    @Bean
    @ConditionalOnBooleanProperty(REMOVE_SHARDING_DATA)
    ShardingDataRemovalRunner shardingDataRemovalRunner(
            ShardingSettings settings,
            ShardingStore store,
            ObjectProvider<ShardingDiscoveryDatabase> discoveryDatabase,
            ObjectProvider<JChannelCustomizer> channelCustomizers) {
        return new ShardingDataRemovalRunner(settings, store, discoveryDatabase.getIfAvailable(), channelCustomizers);
    }

    /**
     * Stops the application once it is ready, after the removal of the stored sharding data.
     *
     * @return the listener
     */
    @Bean
    @ConditionalOnBooleanProperty(REMOVE_SHARDING_DATA)
    static ShardingDataRemovalRunner.StopWhenReady shardingDataRemovalStopWhenReady() {
        return new ShardingDataRemovalRunner.StopWhenReady();
    }

    /**
     * Entity settings for a type this node does not run have no effect: most likely a misspelt type name.
     */
    private static void checkEntitySettings(ShardingSettings settings, Set<String> typeNames) {
        for (String type : settings.entities().keySet()) {
            if (!typeNames.contains(type)) {
                throw new InvalidConfigurationPropertyValueException(
                        "sharding.entities." + type,
                        type,
                        "this node runs no entity type named '" + type + "'; its entity types are "
                                + new TreeSet<>(typeNames) + " (the type names of their @ShardedEntity classes)");
            }
        }
    }

    /** The property of a core setting: the core names its settings after the properties under {@code sharding.}. */
    static String propertyName(String setting) {
        return "sharding." + setting;
    }
}
