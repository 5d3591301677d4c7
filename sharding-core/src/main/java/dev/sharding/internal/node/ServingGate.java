package dev.sharding.internal.node;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.entity.ParkedEntities;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.lease.LeaseListener;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.ShardingStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node may deliver to its entities now, and what happens when that changes.
 *
 * <ul>
 * <li>A node serves while its lease lasts ({@link LeaseKeeper#serving()}) and it is not checking its shards.</li>
 * <li>When it loses its side of a partition or its lease for good, every shard stops at once, buffers fail, and the
 * coordinator hears that it hosts nothing ({@link #stopServing}).</li>
 * <li>When a lapsed lease comes back, the shards it kept serve again only if none was allocated elsewhere meanwhile:
 * their epochs are checked against the store first and a stale one is dropped ({@link #resumeServing}). Entities with
 * a message waiting meanwhile are parked and run again afterwards.</li>
 * </ul>
 *
 * <p>{@link #serving()} is read on every message by any thread: two volatile reads.
 */
public final class ServingGate implements LeaseListener {

    private static final Logger log = LoggerFactory.getLogger(ServingGate.class);

    private final LeaseKeeper leases;

    private final LocalRegions regions;

    private final ShardingStore store;

    private final ControlLoop control;

    private final Membership membership;

    private final Runnable reportShards;

    private final Runnable regionChanged;

    /** Set while the shards are checked against the store after a lapse of the lease: nothing is delivered. */
    private volatile boolean verifying;

    /** Entities whose message waits for the node to serve again. */
    private final ParkedEntities parked = new ParkedEntities(this::serving);

    ServingGate(
            LeaseKeeper leases,
            LocalRegions regions,
            ShardingStore store,
            ControlLoop control,
            Membership membership,
            Runnable reportShards,
            Runnable regionChanged) {
        this.leases = leases;
        this.regions = regions;
        this.store = store;
        this.control = control;
        this.membership = membership;
        this.reportShards = reportShards;
        this.regionChanged = regionChanged;
    }

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread; on every message. */
    boolean serving() {
        return leases.serving() && !verifying;
    }

    /** The exception a call gets while the node does not serve. */
    ClusterPartitionedException partitionedException(String reason) {
        return new ClusterPartitionedException("Sharding node " + membership.nodeName() + " does not serve: " + reason);
    }

    /** An entity waits for the node to serve again ({@link ParkedEntities#park}). Entity threads. */
    void park(EntityCell cell) {
        parked.park(cell);
    }

    /** Runs every waiting entity again: the node serves again, or shards were dropped. Any thread. */
    void unparkAll() {
        parked.resumeAll();
    }

    /** The node lost its side or its lease: every shard stops now, and the coordinator hears it hosts none. */
    @Override
    public void stopServing(String reason) {
        RuntimeException failure = partitionedException(reason);
        for (Region<?> r : regions.all()) {
            r.hosting().dropAll(failure);
        }
        reportShards.run();
        regionChanged.run();
    }

    /**
     * A lease is about to come back after a lapse: nothing is delivered until {@link #resumeServing()} has checked the
     * shards. Set before the lease is published, so that no entity thread serves in between. Control thread.
     */
    @Override
    public void holdDelivery() {
        verifying = true;
    }

    /**
     * The node holds a lease again. The shards it kept through the lapse serve again only if none was allocated
     * elsewhere meanwhile: their epochs are checked against the store first, and a stale one is dropped. Control
     * thread.
     */
    @Override
    public void resumeServing() {
        List<Region<?>> hosting =
                regions.all().stream().filter(r -> r.hostedShards() > 0).toList();
        if (hosting.isEmpty()) {
            verifying = false;
            unparkAll(); // their shards are gone: each fails its message
            reportShards.run();
            return;
        }
        verifying = true;
        List<CompletableFuture<?>> checks = new ArrayList<>();
        for (Region<?> r : hosting) {
            CompletableFuture<Map<Integer, Long>> epochs;
            try {
                epochs = store.capabilities().contains(ShardingStore.Capability.CURRENT_EPOCHS)
                        ? store.currentEpochs(r.typeName())
                        : CompletableFuture.failedFuture(
                                new IllegalStateException(store.getClass().getName() + " cannot read shard epochs"));
            } catch (RuntimeException e) {
                epochs = CompletableFuture.failedFuture(e);
            }
            checks.add(epochs.handle((current, failure) -> {
                control.offer(() -> {
                    if (failure != null) {
                        log.warn(
                                "Cannot check the shards of {} on {} against the store; dropping them: {}",
                                r.typeName(),
                                membership.nodeName(),
                                failure.toString());
                        r.hosting().dropHosted();
                    } else {
                        r.hosting().dropStale(current);
                    }
                });
                return null;
            }));
        }
        CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new))
                .whenComplete((v, t) -> control.offer(() -> {
                    verifying = false;
                    unparkAll();
                    reportShards.run();
                }));
    }
}
