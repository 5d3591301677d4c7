package dev.sharding;

import dev.sharding.internal.transport.ClusterProbe;
import dev.sharding.internal.transport.JdbcDiscovery;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.JdbcShardingStore;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jgroups.JChannel;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the stored sharding data of a stopped cluster: the ids of its remembered entities, which would otherwise
 * start again when the cluster next starts (Pekko's {@code RemoveInternalClusterShardingData}). Entity state is
 * application data and stays; so do the shard epochs, which protect it from writers that lost their shard. The
 * coordinator's allocation table is not stored: a cluster rebuilds it from its regions at every start.
 *
 * <pre>{@code
 * ShardingDataRemoval.Result result = ShardingDataRemoval.of(settings, store).run();
 * }</pre>
 *
 * <p>{@link #run()} refuses while the cluster runs. It first joins the cluster with a short-lived probe member (named
 * {@code sharding-admin-probe-…}) configured like a node with the same settings and channel customizer: if any
 * other member is alive it throws {@link ClusterNotStoppedException} naming them and changes nothing. Otherwise it
 * clears the store while the probe stays connected, so that a node starting meanwhile joins the probe, takes it for
 * its coordinator and allocates no shard until the data is gone. The probe never hosts a shard and answers what a
 * member without regions must, so a probe joining a running cluster does not disturb it.
 */
public final class ShardingDataRemoval {

    private static final Logger log = LoggerFactory.getLogger(ShardingDataRemoval.class);

    private final ShardingSettings settings;

    private final ShardingStore store;

    private final Consumer<JChannel> channelCustomizer;

    private final @Nullable JdbcDiscovery jdbc;

    private ShardingDataRemoval(
            ShardingSettings settings,
            ShardingStore store,
            Consumer<JChannel> channelCustomizer,
            @Nullable JdbcDiscovery jdbc) {
        this.settings = settings;
        this.store = store;
        this.channelCustomizer = channelCustomizer;
        this.jdbc = jdbc;
    }

    /**
     * Prepares the removal of a cluster's stored sharding data.
     *
     * @param settings the settings the cluster's nodes use: cluster name and JGroups configuration
     * @param store the store the cluster's nodes use; it is not closed
     * @return the removal, not run yet
     */
    public static ShardingDataRemoval of(ShardingSettings settings, ShardingStore store) {
        return new ShardingDataRemoval(
                Objects.requireNonNull(settings, "settings"),
                Objects.requireNonNull(store, "store"),
                channel -> {},
                store instanceof JdbcShardingStore j
                        ? new JdbcDiscovery(j.dataSource(), j.tablePrefix() + "discovery")
                        : null);
    }

    /**
     * Changes the probe's JGroups channel before it connects, as the nodes' channel customizer does theirs.
     *
     * @param customizer the customizer
     * @return a removal with it
     */
    public ShardingDataRemoval withChannelCustomizer(Consumer<JChannel> customizer) {
        return new ShardingDataRemoval(settings, store, Objects.requireNonNull(customizer, "customizer"), jdbc);
    }

    /**
     * The database where {@code sharding.jgroups.discovery=jdbc} finds the cluster, as the nodes'
     * {@link ShardingNode.Builder#discoveryDatabase(DataSource, String)}; by default the store's, when it is a JDBC one.
     *
     * @param dataSource the database
     * @param tablePrefix prepended to the table name
     * @return a removal with it
     */
    public ShardingDataRemoval withDiscoveryDatabase(DataSource dataSource, String tablePrefix) {
        return new ShardingDataRemoval(
                settings, store, channelCustomizer, new JdbcDiscovery(dataSource, tablePrefix + "discovery"));
    }

    /**
     * Looks for live members of the cluster and, if there are none, deletes its stored sharding data. Blocks for
     * the probe's discovery (about the stack's join timeout, twice when the cluster is stopped) and the store's
     * delete.
     *
     * @return what was removed
     * @throws ClusterNotStoppedException if a member of the cluster is alive; nothing was changed
     * @throws ShardingException if the probe cannot join the cluster or the store fails
     */
    public Result run() {
        String clusterName = settings.clusterName();
        try (ClusterProbe probe = ClusterProbe.connect(settings, channelCustomizer, jdbc)) {
            List<String> live = probe.liveMembers();
            if (!live.isEmpty()) {
                throw new ClusterNotStoppedException(clusterName, live);
            }
            log.info(
                    "Cluster {} is stopped: probe {} found no other member; removing its stored sharding data",
                    clusterName,
                    probe.name());
            long remembered;
            try {
                remembered = store.clearShardingData().join();
            } catch (CompletionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                throw new ShardingException(
                        "Could not remove the stored sharding data of cluster '" + clusterName + "': "
                                + cause.getMessage(),
                        cause);
            }
            Result result = new Result(clusterName, remembered);
            log.info(
                    "Removed the stored sharding data of cluster {}: {} remembered entity ids; entity state and"
                            + " shard epochs were kept",
                    clusterName,
                    remembered);
            return result;
        }
    }

    /**
     * What a removal deleted.
     *
     * @param clusterName the cluster
     * @param rememberedEntities how many remembered entity ids were deleted
     */
    public record Result(String clusterName, long rememberedEntities) {}
}
