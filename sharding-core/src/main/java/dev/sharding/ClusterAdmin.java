package dev.sharding;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What an operator asks of the cluster through one of its nodes ({@link ShardingNode#admin()}): where every shard is,
 * a rebalance now, one shard moved. The Spring Boot starter's actuator endpoint {@code /actuator/sharding} calls it.
 * Requests go to the active coordinator, wherever it runs; any node can take them.
 */
public interface ClusterAdmin {

    /**
     * Gathers the shards and entity counts of every member's regions.
     *
     * @param timeout how long to wait for the members' answers
     * @return the snapshot; members that did not answer are marked so
     */
    CompletableFuture<ClusterState> clusterState(Duration timeout);

    /**
     * Asks the coordinator for a rebalance round now, whatever the interval.
     *
     * @return what was done, or why nothing was
     */
    CompletableFuture<AdminResult> rebalance();

    /**
     * Asks the coordinator to move one shard, to a named node or wherever the allocation strategy puts it.
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @param targetNode the name of the node to move it to, or {@code null}
     * @return what was done, or the error: unknown type, shard or node, shard not allocated, handoff in progress
     */
    CompletableFuture<AdminResult> handOff(String typeName, int shardId, @Nullable String targetNode);

    /**
     * Describes the sharded daemon processes and projections this node runs (every node registers the same): where
     * each worker runs, as a cluster state gathered before shows it, and how far each projection slice has gone, read
     * from the store.
     *
     * @param placement a cluster state gathered by {@link #clusterState}
     * @return one entry per process, by name; a slice the store could not describe says why
     */
    CompletableFuture<List<DaemonProcessState>> daemonProcesses(ClusterState placement);
}
