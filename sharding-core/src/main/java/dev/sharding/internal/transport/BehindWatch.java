package dev.sharding.internal.transport;

import dev.sharding.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.jgroups.Address;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the members' queues a few times per {@code suspect-after} and reports, through {@link BehindReports}, each
 * member that has stayed behind that long ({@link OutboxPeer#behindNanos}): at most once per {@code suspect-after}
 * per member. A node behind toward more than half of its peers (and more than one) reports none of them: its own
 * network or CPU is the slow part, and reporting them would empty the cluster around it.
 */
final class BehindWatch {

    private static final Logger log = LoggerFactory.getLogger(BehindWatch.class);

    private final Map<Member, OutboxPeer> peers;

    private final MemberNames names;

    private final IntSupplier viewSize;

    private final BehindReports reports;

    private final long suspectAfterNanos;

    private final ScheduledExecutorService thread;

    private final AtomicLong reported = new AtomicLong();

    /** When each member was last reported (watch thread only). */
    private final Map<Member, Long> reportedAt = new ConcurrentHashMap<>();

    /** When the watch last said that this node is behind toward most members (watch thread only). */
    private long selfBehindLoggedAt;

    /**
     * Starts the watch.
     *
     * @param nodeName the node's name, for the thread's
     * @param peers the members' queues, as the transport keeps them
     * @param names the members' channel addresses
     * @param viewSize the size of the current view
     * @param reports where members behind are reported
     * @param suspectAfterNanos how long a member may stay behind, positive
     */
    BehindWatch(
            String nodeName,
            Map<Member, OutboxPeer> peers,
            MemberNames names,
            IntSupplier viewSize,
            BehindReports reports,
            long suspectAfterNanos) {
        this.peers = peers;
        this.names = names;
        this.viewSize = viewSize;
        this.reports = reports;
        this.suspectAfterNanos = suspectAfterNanos;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sharding-behind-watch-" + nodeName);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(
                TimeUnit.MILLISECONDS.toNanos(20), Math.min(suspectAfterNanos / 5, TimeUnit.SECONDS.toNanos(1)));
        thread.scheduleWithFixedDelay(this::look, period, period, TimeUnit.NANOSECONDS);
    }

    /**
     * Members reported so far.
     *
     * @return the count
     */
    long reported() {
        return reported.get();
    }

    /** Stops the watch. */
    void stop() {
        thread.shutdownNow();
    }

    private void look() {
        try {
            long now = System.nanoTime();
            List<Member> behind = new ArrayList<>();
            peers.forEach((m, p) -> {
                if (p.behindNanos(now) > suspectAfterNanos) {
                    behind.add(m);
                }
            });
            reportedAt.keySet().retainAll(peers.keySet());
            if (behind.isEmpty()) {
                return;
            }
            int others = Math.max(1, viewSize.getAsInt() - 1);
            if (behind.size() > 1 && behind.size() * 2 > others) {
                if (selfBehindLoggedAt == 0 || now - selfBehindLoggedAt > suspectAfterNanos) {
                    selfBehindLoggedAt = now;
                    log.warn(
                            "This node has stayed behind toward {} of its {} peers for more than {} ms: its own network"
                                    + " or CPU is the slow part, so it reports none of them",
                            behind.size(),
                            others,
                            suspectAfterNanos / 1_000_000);
                }
                return;
            }
            for (Member m : behind) {
                Long last = reportedAt.get(m);
                OutboxPeer p = peers.get(m);
                Address a = names.address(m);
                if (p == null || a == null || (last != null && now - last < suspectAfterNanos)) {
                    continue;
                }
                reportedAt.put(m, now);
                log.warn(
                        "Member {} has stayed behind for {} ms ({} bytes queued toward it, {} frames refused): reporting"
                                + " it to failure detection (setting sharding.backpressure.suspect-after)",
                        m.name(),
                        p.behindNanos(now) / 1_000_000,
                        p.queuedBytes(),
                        p.refused());
                if (reports.report(a)) {
                    reported.incrementAndGet();
                }
            }
        } catch (RuntimeException e) {
            log.warn("Watching members behind failed", e);
        }
    }
}
