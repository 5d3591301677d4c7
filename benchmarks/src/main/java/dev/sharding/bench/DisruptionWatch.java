package dev.sharding.bench;

import dev.sharding.Member;
import dev.sharding.ShardingNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Watches, from the measuring node, what a kill or leave of some members does to the view: when the view no longer
 * holds them, and, when the coordinator was among them, when another took over and (if on this node) was ready. Polls
 * every 5 ms on a thread of its own.
 */
final class DisruptionWatch {

    private final ShardingNode node;

    private final List<String> names;

    private final Set<String> gone;

    private final @Nullable String coordinatorBefore;

    private final boolean coordinatorGoes;

    private final AtomicLong viewChange = new AtomicLong(-1);

    private final AtomicLong newCoordinator = new AtomicLong(-1);

    private final AtomicLong selfReady = new AtomicLong(-1);

    private final AtomicReference<String> newCoordinatorName = new AtomicReference<>();

    private final Thread watcher;

    DisruptionWatch(ShardingNode node, List<String> names, @Nullable String coordinatorBefore) {
        this.node = node;
        this.names = names;
        this.gone = Set.copyOf(names);
        this.coordinatorBefore = coordinatorBefore;
        this.coordinatorGoes = coordinatorBefore != null && gone.contains(coordinatorBefore);
        this.watcher = new Thread(this::watch, "w8-view-watcher");
        this.watcher.setDaemon(true);
    }

    void start() {
        watcher.start();
    }

    private void watch() {
        while (!Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            if (viewChange.get() < 0 && node.members().stream().noneMatch(m -> gone.contains(m.name()))) {
                viewChange.set(now);
            }
            Member c = node.coordinator();
            if (coordinatorGoes && newCoordinator.get() < 0 && c != null && !gone.contains(c.name())) {
                newCoordinator.set(now);
                newCoordinatorName.set(c.name());
            }
            if (coordinatorGoes && selfReady.get() < 0 && newCoordinator.get() >= 0 && node.isCoordinatorReady()) {
                selfReady.set(now);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Stops watching once the view (and the coordinator, when it went) changed, waiting for that at most {@code
     * patience}: those may come after every entity answered.
     */
    void stop(Duration patience) throws InterruptedException {
        long waitUntil = System.nanoTime() + patience.toNanos();
        while ((viewChange.get() < 0 || (coordinatorGoes && newCoordinator.get() < 0))
                && System.nanoTime() < waitUntil) {
            Thread.sleep(20);
        }
        watcher.interrupt();
    }

    /** Puts what was seen, in seconds from {@code t0}, into the step's result. */
    void report(Map<String, Object> r, long t0) {
        r.put("seconds_to_view_change", viewChange.get() < 0 ? null : secs(viewChange.get() - t0));
        r.put("members", names);
        r.put("coordinator_before", coordinatorBefore);
        if (coordinatorGoes) {
            r.put("coordinator_after", newCoordinatorName.get());
            r.put("seconds_to_new_coordinator", newCoordinator.get() < 0 ? null : secs(newCoordinator.get() - t0));
            if (node.nodeName().equals(newCoordinatorName.get())) {
                r.put("seconds_to_coordinator_ready", selfReady.get() < 0 ? null : secs(selfReady.get() - t0));
            }
        }
    }

    private static double secs(long nanos) {
        return Workloads.round3(Workloads.seconds(nanos));
    }
}
