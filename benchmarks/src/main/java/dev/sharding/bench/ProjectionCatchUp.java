package dev.sharding.bench;

import dev.sharding.ClusterState;
import dev.sharding.DaemonProcessState;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * D3's projection figures, taken on node A when the measured window has ended and every caller has stopped: how far
 * behind the sample's history projection is then (the oldest deposit not yet in the history, over its slices), and how
 * long until every slice has caught up.
 */
final class ProjectionCatchUp {

    private ProjectionCatchUp() {}

    static Map<String, Object> measure(ShardingNode node, String projection) throws Exception {
        long t0 = System.nanoTime();
        long lagAtEnd = -1;
        Map<String, Object> r = new LinkedHashMap<>();
        long deadline = t0 + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline) {
            ClusterState state =
                    node.admin().clusterState(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            List<DaemonProcessState> daemons =
                    node.admin().daemonProcesses(state).get(10, TimeUnit.SECONDS);
            long lag = 0;
            boolean caughtUp = true;
            boolean found = false;
            for (DaemonProcessState d : daemons) {
                if (!d.name().equals(projection)) {
                    continue;
                }
                found = true;
                for (DaemonProcessState.Worker w : d.workers()) {
                    DaemonProcessState.ProjectionSlice s = w.slice();
                    if (s == null || s.error() != null) {
                        caughtUp = false;
                    } else if (s.oldestUnhandled() != null) {
                        caughtUp = false;
                        lag = Math.max(lag, s.lagMillis());
                    }
                }
            }
            if (!found) {
                r.put("error", "no projection " + projection + " on this node");
                return r;
            }
            if (lagAtEnd < 0) {
                lagAtEnd = lag;
            }
            if (caughtUp) {
                r.put("projection_lag_ms_at_end", lagAtEnd);
                r.put("projection_catch_up_s", Workloads.round3(Workloads.seconds(System.nanoTime() - t0)));
                return r;
            }
            Thread.sleep(100);
        }
        r.put("projection_lag_ms_at_end", lagAtEnd);
        r.put("error", "the projection had not caught up 5 minutes after the load ended");
        return r;
    }
}
