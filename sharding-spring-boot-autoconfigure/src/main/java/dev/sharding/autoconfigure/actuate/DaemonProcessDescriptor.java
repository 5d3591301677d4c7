package dev.sharding.autoconfigure.actuate;

import dev.sharding.DaemonProcessState;
import dev.sharding.Member;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A sharded daemon process or projection as the {@code sharding} endpoint describes it: where each worker runs, and
 * for a projection how far each slice has gone.
 *
 * @param name the process's name
 * @param count how many workers it has
 * @param projectionOf for a projection, the event-sourced entity type it reads; {@code null} for another process
 * @param workers one entry per worker, by index
 */
public record DaemonProcessDescriptor(
        String name, int count, @Nullable String projectionOf, List<WorkerDescriptor> workers) {

    /**
     * One worker.
     *
     * @param index its index
     * @param node the name of the member it runs on, or {@code null} when it runs nowhere now (moving, restarting, or
     *     its member did not answer)
     * @param firstShard for a projection, the first shard of its slice; -1 otherwise
     * @param lastShard for a projection, the last shard of its slice; -1 otherwise
     * @param offset for a projection, the global offset of the last event the slice handled; -1 otherwise or when the
     *     store could not say
     * @param oldestUnhandled for a projection, when the oldest event of the slice not handled yet was written;
     *     {@code null} when it has caught up
     * @param lagMillis for a projection, how long ago that event was written (0 when caught up); -1 otherwise
     * @param error why the store could not describe the slice, or {@code null}
     */
    public record WorkerDescriptor(
            int index,
            @Nullable String node,
            int firstShard,
            int lastShard,
            long offset,
            @Nullable Instant oldestUnhandled,
            long lagMillis,
            @Nullable String error) {}

    static DaemonProcessDescriptor of(DaemonProcessState state) {
        return new DaemonProcessDescriptor(
                state.name(),
                state.count(),
                state.projectionOf(),
                state.workers().stream().map(DaemonProcessDescriptor::describe).toList());
    }

    private static WorkerDescriptor describe(DaemonProcessState.Worker w) {
        Member on = w.runningOn();
        String node = on == null ? null : on.name();
        DaemonProcessState.ProjectionSlice s = w.slice();
        if (s == null) {
            return new WorkerDescriptor(w.index(), node, -1, -1, -1, null, -1, null);
        }
        return new WorkerDescriptor(
                w.index(),
                node,
                s.firstShard(),
                s.lastShard(),
                s.offset(),
                s.oldestUnhandled(),
                s.lagMillis(),
                s.error());
    }
}
