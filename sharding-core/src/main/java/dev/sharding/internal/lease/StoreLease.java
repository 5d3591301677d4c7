package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.NEVER;
import static dev.sharding.internal.lease.LeaseTimes.ahead;
import static dev.sharding.internal.lease.LeaseTimes.elapsed;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.spi.ShardingStore;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's lease in the store, renewed each quarter of the lease duration by the active coordinator.
 *
 * <ul>
 * <li>With split-brain strategy {@code store-lease} it is what lets the coordinator run: the side whose coordinator
 * holds it wins. It lasts from when the request was sent plus the time the store's clock says is left.</li>
 * <li>With the other strategies it guards against a second cluster started on the same store by mistake: a holder
 * that was never a member of this cluster is a foreign cluster, and this coordinator allocates nothing while it holds
 * the lease. A coordinator that may not run does not hold on to it.</li>
 * <li>A store that holds no leases (it does not declare {@link ShardingStore.Capability#COORDINATOR_LEASE}) is never
 * asked.</li>
 * </ul>
 *
 * <p>Control thread only.
 */
final class StoreLease {

    private static final Logger log = LoggerFactory.getLogger(StoreLease.class);

    /** What the lease keeper does when the answers come. */
    interface Listener {

        /** Whether this node is still the active coordinator. */
        boolean coordinating();

        /**
         * The lease was granted after it had lapsed (or for the first time).
         *
         * @param until when it ends
         */
        void regained(long until);

        /**
         * Another cluster (another cluster name) holds the store's lease: this cluster may not use the store, for
         * good. Called once.
         *
         * @param reason what to tell the nodes, naming both clusters and what to do
         */
        void storeUsedByAnotherCluster(String reason);
    }

    /**
     * How long a member of no view may hold the store's lease before it is taken for a second cluster and logged as
     * an error: several merge rounds (MERGE3 checks every 2 to 5 s in the default stack).
     */
    static final long FOREIGN_ERROR_AFTER_NANOS = 30_000_000_000L;

    private final LeaseHost node;

    private final SplitBrainSettings settings;

    private final long leaseNanos;

    private final long renewNanos;

    private final Listener listener;

    private long until = NEVER;

    /** When the request that last renewed the lease was sent. */
    private long sentAt = NEVER;

    private boolean supported = true;

    private boolean inFlight;

    private long lastAttemptNanos = NEVER;

    /**
     * When a member of this cluster that is not this node held the lease at the last attempt: when its lease ends, by
     * this node's clock (it ends no earlier), so that the next attempt comes then rather than a quarter lease after
     * the last; {@code NEVER} otherwise.
     */
    private long holderEndsAt = NEVER;

    private @Nullable String foreignHolder;

    /** The id of {@link #foreignHolder} when it is a member of no view seen yet (same cluster name), or {@code null}. */
    private @Nullable String foreignHolderId;

    /** When the lease was first found held by a member of no view seen, for as long as it still is. */
    private long foreignSince = NEVER;

    private boolean foreignSeen;

    /** The other cluster found holding the store's lease, or {@code null}: once set, the store is not asked again. */
    private @Nullable String otherCluster;

    /** Whether this node was refused for good: the store is not asked. */
    private boolean refused;

    private long heldSince = NEVER;

    /** Everyone seen in a view since start: a store lease held by one of them is not another cluster's. */
    private final Set<String> knownMemberIds = new HashSet<>();

    StoreLease(LeaseHost node, SplitBrainSettings settings, long leaseNanos, long renewNanos, Listener listener) {
        this.node = node;
        this.settings = settings;
        this.leaseNanos = leaseNanos;
        this.renewNanos = renewNanos;
        this.listener = listener;
    }

    /**
     * The members of a view are of this cluster. A holder of the store's lease taken for another cluster that is now
     * among them is not one: this node had started alone, not finding the others in time (discovery under load, a
     * slow network), and the two have merged. This coordinator may run at once; it takes the store's lease when the
     * holder gives it up or it runs out, as from any coordinator before it.
     */
    void knownMembers(List<Member> members) {
        members.forEach(m -> knownMemberIds.add(m.id()));
        String holderId = foreignHolderId;
        if (holderId != null && knownMemberIds.contains(holderId)) {
            log.info(
                    "Coordinator lease holder {} is a member of this cluster now (view {}): it was a part of this"
                            + " cluster that {} had not found yet",
                    foreignHolder,
                    members,
                    node.nodeName());
            foreignHolder = null;
            foreignHolderId = null;
            foreignSince = NEVER;
        }
    }

    /** This node became the coordinator: it holds no lease yet. */
    void reset() {
        if (otherCluster == null) {
            foreignHolder = null;
        }
        until = NEVER;
        lastAttemptNanos = NEVER;
        holderEndsAt = NEVER;
    }

    /** When the lease ends, {@link LeaseTimes#NEVER} when not held. */
    long until() {
        return until;
    }

    /** When the request that last renewed it was sent. */
    long sentAt() {
        return sentAt;
    }

    /** Whether the store holds leases at all (as far as is known). */
    boolean supported() {
        return supported;
    }

    /**
     * Whether, since this node started, the lease was found held by a member that is not of this cluster: another
     * cluster on the same store, which may still be serving what this one would place.
     */
    boolean foreignSeen() {
        return foreignSeen;
    }

    /** When the request that took the lease after it was not held was sent, or {@code NEVER}. */
    long heldSince() {
        return ahead(until, System.nanoTime()) ? heldSince : NEVER;
    }

    /** The member holding the lease that is not of this cluster, or {@code null}. */
    @Nullable
    String foreignHolder() {
        return foreignHolder;
    }

    /**
     * Renews the lease if a quarter of its duration passed since the last attempt, or the lease of the member of this
     * cluster that held it at the last attempt (a coordinator that crashed or left) has ended since, and none is in
     * flight. A new coordinator that finds its predecessor's lease in the store takes it the moment it ends, not up to
     * a quarter lease later: until then it places no shard.
     *
     * @param now the time
     * @param mayHold whether this coordinator may hold it now (asked only when a renewal is due): with store-lease
     *     always, with the other strategies only while it may run ({@link CoordinatorRight#mayHoldStoreLease})
     */
    void renew(long now, BooleanSupplier mayHold) {
        if (!supported
                || otherCluster != null
                || refused
                || inFlight
                || !(elapsed(lastAttemptNanos, now, renewNanos) || holderEnded(now))
                || !mayHold.getAsBoolean()) {
            return;
        }
        ShardingStore store = node.store();
        if (!store.capabilities().contains(ShardingStore.Capability.COORDINATOR_LEASE)) {
            unsupported(store);
            return;
        }
        inFlight = true;
        lastAttemptNanos = now;
        Member self = node.self();
        long sent = System.nanoTime();
        store.acquireCoordinatorLease(node.clusterName(), self.id(), self.name(), settings.leaseDuration())
                .whenComplete((lease, failure) -> node.runOnControlLater(() -> {
                    inFlight = false;
                    if (failure != null) {
                        log.warn("Cannot renew the coordinator lease in the store: {}", unwrap(failure));
                    } else if (listener.coordinating()) {
                        answered(lease, sent);
                    }
                }));
    }

    private boolean holderEnded(long now) {
        return holderEndsAt != NEVER && !ahead(holderEndsAt, now);
    }

    private static String unwrap(Throwable failure) {
        return (failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure).toString();
    }

    /** The store holds no leases: it is not asked again, and a coordinator that needs one can never run. */
    private void unsupported(ShardingStore store) {
        supported = false;
        if (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE) {
            log.error(
                    "Split-brain strategy store-lease needs a store that holds leases, and {} does not: the "
                            + "coordinator on {} can never run",
                    store.getClass().getName(),
                    node.nodeName());
        }
    }

    private void answered(ShardingStore.CoordinatorLease lease, long sent) {
        holderEndsAt = NEVER;
        if (lease.granted()) {
            boolean held = ahead(until, System.nanoTime());
            until = sent + Math.min(lease.remaining().toNanos(), leaseNanos);
            sentAt = sent;
            if (foreignHolder != null) {
                log.info("Coordinator on {} holds the store's coordinator lease again", node.nodeName());
                foreignHolder = null;
                foreignHolderId = null;
                foreignSince = NEVER;
            }
            if (!held) {
                heldSince = sent;
                log.debug("Coordinator on {} holds the store's coordinator lease", node.nodeName());
                listener.regained(until);
            }
        } else if (lease.anotherCluster()) {
            heldByAnotherCluster(lease);
        } else if (!knownMemberIds.contains(lease.holderId())) {
            heldByAnUnknownMember(lease);
        } else {
            if (foreignHolderId != null) {
                // the unknown holder gave it up or let it run out, and a member of this cluster holds it now
                foreignHolder = null;
                foreignHolderId = null;
                foreignSince = NEVER;
            }
            // the store measured what is left after the request was sent: it ends no earlier than this, on this clock
            holderEndsAt = sent + Math.max(0, Math.min(lease.remaining().toNanos(), leaseNanos)) + 1;
            log.debug(
                    "Coordinator lease in the store held by {} for {} ms more",
                    lease.holderName(),
                    lease.remaining().toMillis());
        }
    }

    /**
     * A member of no view this node has seen holds the store's lease, under this cluster's name: a part of this
     * cluster not found yet (this node started alone and a merge is near), or a second cluster of the same name that
     * cannot reach this one. Either way this coordinator allocates nothing while it does. A warning first, since a
     * merge usually follows within seconds; an error once it lasted {@link #FOREIGN_ERROR_AFTER_NANOS}.
     */
    private void heldByAnUnknownMember(ShardingStore.CoordinatorLease lease) {
        long now = System.nanoTime();
        boolean first = foreignHolder == null || !lease.holderId().equals(foreignHolderId);
        if (first) {
            foreignSince = now;
            log.warn(
                    "Coordinator lease of cluster '{}' in the store is held by {} ({}), not a member of this node's view"
                            + " {}: a part of this cluster that this node has not found yet, or a second cluster of the"
                            + " same name. This coordinator allocates no shard while it does; the parts merge within"
                            + " seconds if they can reach each other",
                    node.clusterName(),
                    lease.holderName(),
                    lease.holderId(),
                    node.members());
        } else if (foreignSince != NEVER && elapsed(foreignSince, now, FOREIGN_ERROR_AFTER_NANOS)) {
            foreignSince = NEVER; // said once
            log.error(
                    "Another cluster named '{}' runs on this store: its coordinator {} ({}) has held the store's"
                            + " coordinator lease for over {} s, and it is not a member of this cluster {}. This"
                            + " coordinator allocates no shard while it does; check that every node lists the others"
                            + " in sharding.jgroups.initial-hosts",
                    node.clusterName(),
                    lease.holderName(),
                    lease.holderId(),
                    FOREIGN_ERROR_AFTER_NANOS / 1_000_000_000L,
                    node.members());
        }
        foreignHolder = lease.holderName();
        foreignHolderId = lease.holderId();
        foreignSeen = true;
    }

    /**
     * Another cluster uses the store: this coordinator allocates nothing, grants its members no lease, and never asks
     * the store again (so that it cannot take the lease when the other cluster's lapses for a moment); its cluster is
     * refused for good, through the listener.
     */
    private void heldByAnotherCluster(ShardingStore.CoordinatorLease lease) {
        foreignHolder = lease.holderName() + " of cluster '" + lease.holderCluster() + "'";
        foreignSeen = true;
        if (otherCluster != null) {
            return;
        }
        otherCluster = lease.holderCluster();
        String reason = "the store is used by another cluster: cluster '" + lease.holderCluster()
                + "' (its coordinator " + lease.holderName() + ") holds the store's coordinator lease, and this is"
                + " cluster '" + node.clusterName() + "'; a store (one database and sharding.store.table-prefix)"
                + " serves one cluster only. Give each cluster its own table prefix (sharding.store.table-prefix) or"
                + " its own database, or, if both should be one cluster, give them the same sharding.cluster-name"
                + " and let them find each other (sharding.jgroups.initial-hosts); then restart these nodes";
        log.error(
                "Coordinator on {} found this cluster on another cluster's store; no node of cluster '{}' serves: {}",
                node.nodeName(),
                node.clusterName(),
                reason);
        listener.storeUsedByAnotherCluster(reason);
    }

    /**
     * This node was refused for good by its coordinator (another cluster uses the store, or another number of shards
     * or store): should it become the coordinator, it never asks the store, so that a cluster refused for another
     * cluster's store cannot take the store's lease from that cluster when its lease lapses for a moment.
     */
    void refusedForGood() {
        refused = true;
    }

    /** A coordinator that stops gives up its lease, so that the next one need not wait for it. */
    void release(boolean coordinating) {
        if (coordinating && supported) {
            try {
                node.store()
                        .releaseCoordinatorLease(node.clusterName(), node.self().id());
            } catch (RuntimeException e) {
                log.debug("Releasing the store lease failed", e);
            }
        }
    }

    /** Forgets the lease without releasing it. */
    void lapse() {
        until = NEVER;
        holderEndsAt = NEVER;
    }
}
