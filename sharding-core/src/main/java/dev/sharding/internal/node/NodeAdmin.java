package dev.sharding.internal.node;

import dev.sharding.AdminResult;
import dev.sharding.ClusterAdmin;
import dev.sharding.ClusterState;
import dev.sharding.DaemonProcessState;
import dev.sharding.Member;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An operator's requests through this node: the cluster's state gathered from every member, and requests to the active
 * coordinator (a rebalance now, one shard moved), answered with the default ask timeout.
 */
final class NodeAdmin implements ClusterAdmin {

    private final Supplier<Member> self;

    private final Membership membership;

    private final LocalRegions regions;

    private final AdminClient admin;

    private final ClusterStatistics statistics;

    private final Duration timeout;

    private final DaemonDescriptions daemons;

    NodeAdmin(
            Supplier<Member> self,
            Membership membership,
            LocalRegions regions,
            AdminClient admin,
            ClusterStatistics statistics,
            ShardingStore store,
            Duration timeout) {
        this.self = self;
        this.membership = membership;
        this.regions = regions;
        this.admin = admin;
        this.statistics = statistics;
        this.timeout = timeout;
        this.daemons = new DaemonDescriptions(regions, store);
    }

    @Override
    public CompletableFuture<List<DaemonProcessState>> daemonProcesses(ClusterState placement) {
        return daemons.describe(Objects.requireNonNull(placement, "placement"));
    }

    @Override
    public CompletableFuture<ClusterState> clusterState(Duration timeout) {
        List<Member> members = membership.view();
        Member coordinator = membership.coordinator();
        Set<String> localTypes = new LinkedHashSet<>(regions.byType().keySet());
        return statistics
                .collect(timeout.toMillis())
                .thenApply(stats -> ClusterStateAssembly.of(self.get(), coordinator, members, localTypes, stats));
    }

    @Override
    public CompletableFuture<AdminResult> rebalance() {
        return request(null, 0, null);
    }

    @Override
    public CompletableFuture<AdminResult> handOff(String typeName, int shardId, @Nullable String targetNode) {
        return request(Objects.requireNonNull(typeName, "typeName"), shardId, targetNode);
    }

    private CompletableFuture<AdminResult> request(@Nullable String typeName, int shardId, @Nullable String target) {
        return admin.request(typeName, shardId, target, timeout)
                .thenApply(r -> new AdminResult(r.accepted(), r.message()));
    }
}
