package dev.sharding.internal.node;

import dev.sharding.ClusterState;
import dev.sharding.DaemonProcessState;
import dev.sharding.Member;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.ShardingStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * Describes the daemon processes and projections of this node ({@link dev.sharding.ClusterAdmin#daemonProcesses}):
 * where each worker runs, from a gathered cluster state (the member whose region holds the worker's shard with its
 * entity alive), and for a projection each slice's offset and its oldest event not handled yet, from the store.
 */
final class DaemonDescriptions {

    private final LocalRegions regions;

    private final ShardingStore store;

    DaemonDescriptions(LocalRegions regions, ShardingStore store) {
        this.regions = regions;
        this.store = store;
    }

    CompletableFuture<List<DaemonProcessState>> describe(ClusterState placement) {
        List<CompletableFuture<DaemonProcessState>> processes = new ArrayList<>();
        for (Map.Entry<String, Region<?>> e : new java.util.TreeMap<>(regions.byType()).entrySet()) {
            DaemonWorker.Described d = DaemonWorker.describe(e.getValue().type());
            if (d != null) {
                processes.add(process(e.getKey(), d, placement));
            }
        }
        return CompletableFuture.allOf(processes.toArray(CompletableFuture[]::new))
                .thenApply(v -> processes.stream().map(CompletableFuture::join).toList());
    }

    private CompletableFuture<DaemonProcessState> process(
            String name, DaemonWorker.Described d, ClusterState placement) {
        List<CompletableFuture<DaemonProcessState.Worker>> workers = new ArrayList<>();
        String sourceType = d.projectionOf();
        Region<?> source = sourceType == null ? null : regions.byType().get(sourceType);
        for (int i = 0; i < d.count(); i++) {
            Member on = runningOn(placement, name, i);
            int index = i;
            if (source == null || sourceType == null) {
                workers.add(CompletableFuture.completedFuture(new DaemonProcessState.Worker(i, on, null)));
            } else {
                int shards = source.numberOfShards();
                int first = ProjectionProcess.firstShard(i, d.count(), shards);
                int last = ProjectionProcess.lastShard(i, d.count(), shards);
                workers.add(slice(name, sourceType, i, first, last)
                        .thenApply(s -> new DaemonProcessState.Worker(index, on, s)));
            }
        }
        return CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new))
                .thenApply(v -> new DaemonProcessState(
                        name,
                        d.count(),
                        d.projectionOf(),
                        workers.stream().map(CompletableFuture::join).toList()));
    }

    /** The member whose region holds worker {@code index}'s shard with the worker alive, or {@code null}. */
    private static @Nullable Member runningOn(ClusterState placement, String name, int index) {
        for (ClusterState.RegionState r : placement.regions().getOrDefault(name, List.of())) {
            Integer alive = r.entitiesPerShard().get(index);
            if (r.answered() && alive != null && alive > 0) {
                return r.member();
            }
        }
        return null;
    }

    private CompletableFuture<DaemonProcessState.ProjectionSlice> slice(
            String projection, String type, int slice, int first, int last) {
        CompletableFuture<DaemonProcessState.ProjectionSlice> described;
        try {
            described = store.projectionOffset(projection, slice)
                    .thenCompose(offset -> store.eventsBySlice(type, first, last, offset, 1)
                            .thenApply(next -> describe(first, last, offset, next)));
        } catch (RuntimeException e) {
            described = CompletableFuture.failedFuture(e);
        }
        return described.exceptionally(
                t -> new DaemonProcessState.ProjectionSlice(first, last, -1, null, -1, String.valueOf(unwrap(t))));
    }

    private static DaemonProcessState.ProjectionSlice describe(
            int first, int last, long offset, List<PersistedEvent> next) {
        if (next.isEmpty()) {
            return new DaemonProcessState.ProjectionSlice(first, last, offset, null, 0, null);
        }
        Instant oldest = next.get(0).writtenAt();
        long lag = Math.max(0, System.currentTimeMillis() - oldest.toEpochMilli());
        return new DaemonProcessState.ProjectionSlice(first, last, offset, oldest, lag, null);
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
