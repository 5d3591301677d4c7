package dev.sharding;

import dev.sharding.internal.node.DaemonWorker;
import dev.sharding.internal.node.ProjectionProcess;

/**
 * A projection: turns the events of an event-sourced entity type into something else (a read model, messages to
 * another system), as Akka Projections do. It runs as a {@link ShardedDaemonProcess} of {@code slices} workers, worker
 * {@code i} handling the events of slice {@code i} (an equal range of the type's shards) in global offset order, and
 * saving in the store how far it has gone, so that the worker that takes over after a move or a crash goes on from
 * there.
 *
 * <ul>
 * <li>{@link #of}: at least once. The offset is saved after the handler returns, so events handled just before a
 * crash are handed again.</li>
 * <li>{@link #ofJdbc}: exactly once, on the JDBC store: the handler writes with the connection of the transaction that
 * saves the offset, so both are committed or neither.</li>
 * </ul>
 *
 * <p>Register it on every node, with the same name and number of slices (at most the type's number of shards), beside
 * the entity type it reads. {@link ClusterAdmin#daemonProcesses} (the endpoint's {@code daemonProcesses}) shows
 * where each worker runs, the offset each slice has reached and how far behind it is.
 */
public final class Projection {

    private Projection() {}

    /**
     * An at-least-once projection.
     *
     * @param name its name: its entity type's, and the key of its saved offsets
     * @param entityType the event-sourced entity type it reads
     * @param slices how many workers share the type's shards
     * @param handler what it does with each page of events
     * @return the entity type to register
     */
    public static EntityType<?> of(String name, String entityType, int slices, ProjectionHandler handler) {
        return DaemonWorker.type(name, slices, new ProjectionProcess(name, entityType, handler, null));
    }

    /**
     * An exactly-once projection, whose handler writes in the transaction that saves its offset, on the JDBC store.
     *
     * @param name its name: its entity type's, and the key of its saved offsets
     * @param entityType the event-sourced entity type it reads
     * @param slices how many workers share the type's shards
     * @param handler what it writes for each page of events
     * @return the entity type to register
     */
    public static EntityType<?> ofJdbc(String name, String entityType, int slices, JdbcProjectionHandler handler) {
        return DaemonWorker.type(name, slices, new ProjectionProcess(name, entityType, null, handler));
    }
}
