package dev.sharding;

import dev.sharding.internal.node.DaemonWorker;

/**
 * A sharded daemon process: a fixed number of workers of one kind, each running on exactly one node of the cluster at
 * a time, placed and moved as shards are (spread over the nodes, rebalanced when nodes join, moved when a node leaves
 * or crashes, and stopped on a node that loses its lease under a partition). Akka and Pekko call it the same; it suits
 * work that must run once per partition of a whole: the projections of a journal's slices, a poller per queue.
 *
 * <p>It is an entity type of its own name, with one shard and one remembered entity per worker: register it with
 * {@link ShardingNode.Builder#entityType} on every node, with the same name and count. Every node sends each worker a
 * keep-alive now and then, so that all of them start soon after the cluster forms; {@link ClusterAdmin#daemonProcesses}
 * (the endpoint's {@code daemonProcesses}) shows where each runs.
 *
 * <pre>{@code
 * ShardingNode node = ShardingNode.builder(settings)
 *         .entityType(ShardedDaemonProcess.of("poller", 4, ctx -> new Poller(ctx.index()).start()))
 *         .build();
 * }</pre>
 */
public final class ShardedDaemonProcess {

    private ShardedDaemonProcess() {}

    /**
     * The entity type that runs a daemon process.
     *
     * @param name the process's name, used as its entity type's: 1 to 200 characters of [A-Za-z0-9._-]
     * @param count how many workers, from 1 to 1000; the same on every node
     * @param process what each worker runs
     * @return the entity type to register
     * @throws IllegalArgumentException for an invalid name or count
     */
    public static EntityType<?> of(String name, int count, DaemonProcess process) {
        return DaemonWorker.type(name, count, process);
    }
}
