package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.RegionStopped;
import dev.sharding.internal.protocol.RegionStoppedAck;
import dev.sharding.internal.region.LocalRegions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's graceful leave, in the order that loses nothing:
 *
 * <ol>
 * <li>{@link #handOffShards}: ask the coordinator ({@code GracefulShutdownRequest}, repeated every retry interval)
 * to hand off every shard hosted here, and wait until none is left (and, on the coordinator's own node, until it has
 * placed them all), at most {@code handoff-timeout}, while still serving; the messages of each shard go to its new
 * home.</li>
 * <li>{@link #stopEntities}: fail what is buffered, stop whatever entity is left, and store the remembered entities
 * started since the last flush, so they start again after a restart of the whole cluster.</li>
 * <li>{@link #sayGoodbye}: tell every member ({@code RegionStopped}) and wait briefly for each to confirm, so that
 * every message sent before has arrived.</li>
 * </ol>
 *
 * <p>The other side: a member that says goodbye no longer counts in split-brain decisions, and is confirmed.
 */
final class GracefulLeave {

    private static final Logger log = LoggerFactory.getLogger(GracefulLeave.class);

    private final ShardingSettings settings;

    private final Membership membership;

    private final LocalRegions regions;

    private final ControlLoop control;

    private final Outbound out;

    private final LeaseKeeper leases;

    private volatile boolean leaving;

    /** Whether the coordinator on this node, if active, is still moving shards (control thread). */
    private final BooleanSupplier coordinatorMoving;

    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    private final Set<Member> acksAwaited = ConcurrentHashMap.newKeySet();

    private final CompletableFuture<Void> acked = new CompletableFuture<>();

    GracefulLeave(
            ShardingSettings settings,
            Membership membership,
            LocalRegions regions,
            ControlLoop control,
            Outbound out,
            LeaseKeeper leases,
            BooleanSupplier coordinatorMoving) {
        this.coordinatorMoving = coordinatorMoving;
        this.settings = settings;
        this.membership = membership;
        this.regions = regions;
        this.control = control;
        this.out = out;
        this.leases = leases;
    }

    /** Whether the node is handing off its shards to leave. */
    boolean isLeaving() {
        return leaving;
    }

    /** Marks the node leaving; the caller holds the node's lifecycle lock. */
    void begin() {
        leaving = true;
    }

    /** Asks for the handoff of every shard and waits for it, at most {@code handoff-timeout}. */
    void handOffShards() {
        String nodeName = membership.nodeName();
        log.info("Sharding node {} is leaving: handing off its shards", nodeName);
        long start = System.nanoTime();
        try {
            control.offer(() -> {
                requestHandOff();
                regionChanged();
            });
            drained.get(settings.handoffTimeout().toMillis(), TimeUnit.MILLISECONDS);
            log.info(
                    "Sharding node {} handed off its shards in {} ms",
                    nodeName,
                    (System.nanoTime() - start) / 1_000_000);
        } catch (TimeoutException e) {
            log.warn(
                    "Sharding node {} still hosts shards after handoff-timeout {}; stopping them",
                    nodeName,
                    settings.handoffTimeout());
        } catch (Exception e) {
            log.warn("Graceful handoff of {} failed", nodeName, e);
        }
    }

    /** Asks the coordinator again, every retry interval, while shards are left. Control thread. */
    void retry() {
        if (leaving && !drained.isDone()) {
            requestHandOff();
            regionChanged(); // the coordinator on this node may have finished placing the shards it moved
        }
    }

    private void requestHandOff() {
        Member coord = membership.coordinator();
        if (coord != null) {
            out.send(coord, new GracefulShutdownRequest(), false);
        }
    }

    /**
     * A region's hosting changed: the handoff is done once no region hosts a shard and, on the coordinator's node, the
     * coordinator has placed every shard it moved (else the next coordinator would find them without a home, fence
     * them for a lease and place them on demand, unevenly). Control thread.
     */
    void regionChanged() {
        if (leaving && regions.hostNothing() && !coordinatorMoving.getAsBoolean()) {
            drained.complete(null);
        }
    }

    /**
     * Stops what is left after the handoffs: fails the buffers, stops every entity (waiting at most {@code timeout}),
     * and stores the remembered entities started since the last flush.
     */
    void stopEntities(Duration timeout, ShardingException reason) {
        String nodeName = membership.nodeName();
        control.runAndWait(() -> regions.all().forEach(r -> r.dropBuffers(reason)));
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        regions.all().forEach(r -> stops.add(r.hosting().stopAll()));
        try {
            CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("Entities of {} did not stop within {}", nodeName, timeout);
        } catch (Exception e) {
            log.warn("Stopping entities of {} failed", nodeName, e);
        }
        // entities started since the last flush stay remembered across the restart of the whole cluster
        List<CompletableFuture<Void>> flushes = new CopyOnWriteArrayList<>();
        control.runAndWait(() -> regions.all().forEach(r -> flushes.add(r.flushRemembered(-1))));
        try {
            CompletableFuture.allOf(flushes.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("Remembered entities of {} not all stored before stopping: {}", nodeName, e.toString());
        }
    }

    /** Sends RegionStopped to every other member and waits (briefly) until each confirmed: nothing sent is lost. */
    void sayGoodbye() {
        Member me = membership.self();
        List<Member> others =
                membership.view().stream().filter(m -> !m.equals(me)).toList();
        if (others.isEmpty()) {
            return;
        }
        acksAwaited.addAll(others);
        for (Member m : others) {
            out.send(m, new RegionStopped(), false);
        }
        try {
            acked.get(settings.retryInterval().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.debug("Not every member confirmed the goodbye of {}: {}", membership.nodeName(), acksAwaited);
        }
    }

    /** Another member says goodbye: it no longer counts, and it is confirmed. */
    void onRegionStopped(Member from, RegionStopped m) {
        leases.memberLeaving(from);
        out.send(from, new RegionStoppedAck(), false);
    }

    /** A member confirmed this node's goodbye. */
    void onRegionStoppedAck(Member from, RegionStoppedAck m) {
        acksAwaited.remove(from);
        if (acksAwaited.isEmpty()) {
            acked.complete(null);
        }
    }
}
