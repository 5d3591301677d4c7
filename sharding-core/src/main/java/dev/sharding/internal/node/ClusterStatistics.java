package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.internal.protocol.GetRegionStats;
import dev.sharding.internal.protocol.RegionStats;
import dev.sharding.internal.region.LocalRegions;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Cluster statistics for operators: asks every member of the view for its regions' shards and entity counts
 * ({@code GetRegionStats}), and answers the same question for this node. A request completes when every member
 * answered or left, or when its time is up with the answers it has.
 *
 * <p>Requests are kept and answered on the control thread.
 */
final class ClusterStatistics {

    private final ControlLoop control;

    private final Membership membership;

    private final LocalRegions regions;

    private final Outbound out;

    private final BooleanSupplier leaving;

    /** What the coordinator on this node adds to its answer, if it is active. */
    private final Supplier<CoordinatorFigures> coordinatorFigures;

    private final Map<Long, StatsRequest> requests = new HashMap<>();

    private final AtomicLong ids = new AtomicLong();

    ClusterStatistics(
            ControlLoop control,
            Membership membership,
            LocalRegions regions,
            Outbound out,
            BooleanSupplier leaving,
            Supplier<CoordinatorFigures> coordinatorFigures) {
        this.control = control;
        this.membership = membership;
        this.regions = regions;
        this.out = out;
        this.leaving = leaving;
        this.coordinatorFigures = coordinatorFigures;
    }

    /** Asks every member; any thread. */
    CompletableFuture<Map<Member, RegionStats>> collect(long timeoutMillis) {
        CompletableFuture<Map<Member, RegionStats>> result = new CompletableFuture<>();
        boolean taken = control.offer(() -> {
            List<Member> view = membership.view();
            long id = ids.incrementAndGet();
            StatsRequest request = new StatsRequest(id, new HashSet<>(view), result);
            requests.put(id, request);
            for (Member m : view) {
                out.send(m, new GetRegionStats(id), true);
            }
            request.completeIfDone();
            control.executor().schedule(request::complete, timeoutMillis, TimeUnit.MILLISECONDS);
        });
        if (!taken) {
            result.completeExceptionally(
                    new ShardingException("Sharding node " + membership.nodeName() + " is not running"));
        }
        return result;
    }

    /** A member asks for this node's statistics. */
    void onGetRegionStats(Member from, GetRegionStats m) {
        CoordinatorFigures coordinator = coordinatorFigures.get();
        out.send(
                from,
                new RegionStats(
                        m.requestId(),
                        leaving.getAsBoolean(),
                        coordinator.handoffs(),
                        regions.stats(),
                        regions.profile(),
                        coordinator.rebalances(),
                        coordinator.refused()),
                true);
    }

    /** A member answered. */
    void onRegionStats(Member from, RegionStats m) {
        StatsRequest s = requests.get(m.requestId());
        if (s != null) {
            s.results.put(from, m);
            s.expected.remove(from);
            s.completeIfDone();
        }
    }

    /** Members left the view: no request waits for them any more. */
    void membersGone(Collection<Member> gone) {
        for (StatsRequest s : List.copyOf(requests.values())) {
            s.expected.removeAll(gone);
            s.completeIfDone();
        }
    }

    private final class StatsRequest {

        final long id;

        final Set<Member> expected;

        final Map<Member, RegionStats> results = new ConcurrentHashMap<>();

        final CompletableFuture<Map<Member, RegionStats>> future;

        StatsRequest(long id, Set<Member> expected, CompletableFuture<Map<Member, RegionStats>> future) {
            this.id = id;
            this.expected = expected;
            this.future = future;
        }

        void completeIfDone() {
            if (expected.isEmpty()) {
                complete();
            }
        }

        void complete() {
            requests.remove(id);
            future.complete(Map.copyOf(results));
        }
    }
}
