package dev.sharding.autoconfigure;

import dev.sharding.ClusterNotStoppedException;
import dev.sharding.ShardingDataRemoval;
import dev.sharding.ShardingSettings;
import dev.sharding.spi.ShardingStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;

/**
 * Removes the stored sharding data of the cluster when the application was started with
 * {@code sharding.store.remove-sharding-data=true}: in that mode no sharding node starts, this runner runs
 * {@link ShardingDataRemoval} with the node's settings, store and channel customizers, and {@link StopWhenReady}
 * then closes the application context so that the process ends. It runs before the application's own runners;
 * when members of the cluster are alive it throws {@link ClusterNotStoppedException}, so the application fails to
 * start with an explanation of what to do ({@link ShardingDataRemovalFailureAnalyzer}) and exits with a non-zero
 * status.
 */
final class ShardingDataRemovalRunner implements ApplicationRunner, Ordered {

    private static final Logger log = LoggerFactory.getLogger(ShardingDataRemovalRunner.class);

    private final ShardingSettings settings;

    private final ShardingStore store;

    private final @Nullable ShardingDiscoveryDatabase discoveryDatabase;

    private final ObjectProvider<JChannelCustomizer> channelCustomizers;

    ShardingDataRemovalRunner(
            ShardingSettings settings,
            ShardingStore store,
            @Nullable ShardingDiscoveryDatabase discoveryDatabase,
            ObjectProvider<JChannelCustomizer> channelCustomizers) {
        this.settings = settings;
        this.store = store;
        this.discoveryDatabase = discoveryDatabase;
        this.channelCustomizers = channelCustomizers;
    }

    /**
     * Looks for live members of the cluster and, if there are none, removes its stored sharding data.
     *
     * @param args the application's arguments (not used)
     * @throws ClusterNotStoppedException if members of the cluster are alive; nothing was removed
     */
    @Override
    public void run(ApplicationArguments args) {
        log.info(
                "Started with sharding.store.remove-sharding-data=true: no sharding node runs; removing the stored"
                        + " sharding data of cluster {} if none of its members is alive",
                this.settings.clusterName());
        ShardingDataRemoval removal = ShardingDataRemoval.of(this.settings, this.store)
                .withChannelCustomizer(channel ->
                        this.channelCustomizers.orderedStream().forEach(customizer -> customizer.customize(channel)));
        ShardingDiscoveryDatabase database = this.discoveryDatabase;
        if (database != null) {
            removal = removal.withDiscoveryDatabase(database.dataSource(), database.tablePrefix());
        }
        removal.run();
    }

    /**
     * Runs first, so that a refusal stops the application before its own runners run.
     *
     * @return the highest precedence
     */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /**
     * Closes the application context once it is ready, after a removal: the application was started only for it.
     * Runs after every other listener of {@link ApplicationReadyEvent}.
     */
    static final class StopWhenReady implements ApplicationListener<ApplicationReadyEvent>, Ordered {

        @Override
        public void onApplicationEvent(ApplicationReadyEvent event) {
            log.info("Stopping the application: it was started only to remove the stored sharding data (start it"
                    + " without sharding.store.remove-sharding-data to run a sharding node)");
            SpringApplication.exit(event.getApplicationContext());
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
