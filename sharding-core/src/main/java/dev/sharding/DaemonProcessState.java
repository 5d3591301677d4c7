package dev.sharding;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where the workers of one sharded daemon process run, and for a projection how far each slice has gone
 * ({@link ClusterAdmin#daemonProcesses}).
 *
 * @param name the process's name (its entity type's)
 * @param count how many workers it has
 * @param projectionOf for a projection, the event-sourced entity type it reads; {@code null} for another process
 * @param workers one entry per worker, by index
 */
public record DaemonProcessState(
        String name, int count, @Nullable String projectionOf, List<Worker> workers) {

    /**
     * One worker.
     *
     * @param index its index, 0 to count - 1
     * @param runningOn the member it runs on, or {@code null} when it runs nowhere now (its shard is moving, its start
     *     failed and waits for a retry, or the member that hosts it did not answer)
     * @param slice for a projection, the slice it follows; {@code null} for another process
     */
    public record Worker(
            int index, @Nullable Member runningOn, @Nullable ProjectionSlice slice) {}

    /**
     * How far one slice of a projection has gone, read from the store.
     *
     * @param firstShard the first shard of the slice
     * @param lastShard the last shard of the slice
     * @param offset the global offset of the last event the slice handled (0 before the first)
     * @param oldestUnhandled when the oldest event of the slice not handled yet was written, by the store's clock;
     *     {@code null} when the slice has handled every event
     * @param lagMillis how long before the description, by the describing node's clock, that event was written: how
     *     far behind the slice is (0 when it has caught up)
     * @param error why the store could not say, or {@code null}
     */
    public record ProjectionSlice(
            int firstShard,
            int lastShard,
            long offset,
            @Nullable Instant oldestUnhandled,
            long lagMillis,
            @Nullable String error) {}
}
