package dev.sharding.internal.node;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.entity.ParkedEntities;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.lease.LeaseListener;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.spi.ShardingStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

    /** How long a shard check the store fails is tried again before the shards are dropped. */
    static final long CHECK_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    // short and barely growing: the entities wait for the check, and a database taken over after a crash (the
    // embedded H2 file opened by another node) answers again within a second or so; a pause doubling to seconds
    // would keep them waiting long after it came back
    private static final long FIRST_RETRY_MILLIS = 100;

    private static final long MAX_RETRY_MILLIS = 400;

    /** The lease regained last, whose checks count; a check of an earlier one is dropped. Control thread. */
    private int round;

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
     * elsewhere meanwhile: their epochs are checked against the store first, and a stale one is dropped. A check the
     * store cannot answer (a database failing over, which is often why the lease lapsed) is tried again, with nothing
     * delivered meanwhile, for up to {@link #CHECK_WINDOW_NANOS} while the lease lasts; only then are the shards
     * dropped, so that the coordinator may place them where the store can be reached. Control thread.
     */
    @Override
    public void resumeServing() {
        int current = ++round;
        List<Region<?>> hosting =
                regions.all().stream().filter(r -> r.hostedShards() > 0).toList();
        if (hosting.isEmpty()) {
            verifying = false;
            unparkAll(); // their shards are gone: each fails its message
            reportShards.run();
            return;
        }
        verifying = true;
        int[] pending = {hosting.size()};
        Runnable checked = () -> {
            if (--pending[0] == 0 && current == round) {
                verifying = false;
                unparkAll();
                reportShards.run();
            }
        };
        long started = System.nanoTime();
        for (Region<?> r : hosting) {
            check(r, current, started, FIRST_RETRY_MILLIS, checked);
        }
    }

    /** Checks one region's shards against the store, and again after a failure (see {@link #resumeServing}). */
    private void check(Region<?> r, int current, long started, long retryMillis, Runnable checked) {
        epochs(r)
                .handle((epochs, failure) -> control.offer(() -> {
                    if (current != round) {
                        return; // a later lease checks again
                    }
                    if (failure == null) {
                        r.hosting().dropStale(epochs);
                        checked.run();
                    } else if (System.nanoTime() - started < CHECK_WINDOW_NANOS && leases.serving()) {
                        if (retryMillis == FIRST_RETRY_MILLIS) {
                            log.warn(
                                    "Cannot check the shards of {} on {} against the store yet; trying again, their entities"
                                            + " wait meanwhile: {}",
                                    r.typeName(),
                                    membership.nodeName(),
                                    failure.toString());
                        }
                        control.executor()
                                .schedule(
                                        () -> check(
                                                r,
                                                current,
                                                started,
                                                Math.min(2 * retryMillis, MAX_RETRY_MILLIS),
                                                checked),
                                        retryMillis,
                                        TimeUnit.MILLISECONDS);
                    } else if (leases.serving()) {
                        log.warn(
                                "Cannot check the shards of {} on {} against the store for {} s; dropping them: {}",
                                r.typeName(),
                                membership.nodeName(),
                                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                                failure.toString());
                        r.hosting().dropHosted();
                        checked.run();
                    }
                    // else the lease lapsed again: the next one checks afresh, or the node loses and drops every shard
                }));
    }

    private CompletableFuture<Map<Integer, Long>> epochs(Region<?> r) {
        try {
            return store.capabilities().contains(ShardingStore.Capability.CURRENT_EPOCHS)
                    ? store.currentEpochs(r.typeName())
                    : CompletableFuture.failedFuture(
                            new IllegalStateException(store.getClass().getName() + " cannot read shard epochs"));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
