package dev.sharding.internal;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseMessage;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import dev.sharding.spi.ShardingStore;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's right to serve its shards, and its coordinator's right to run: the split-brain strategy applied to views,
 * and leases measured on the monotonic clock.
 *
 * <h2>Views</h2>
 * Every view goes through the {@link PartitionDecider}. A node whose side loses stops serving at once.
 *
 * <h2>Leases</h2>
 * The coordinator pings every member of its view each quarter of the lease duration; a member answers only the
 * coordinator of its own current view. The coordinator may run until the last time a winning set of members confirmed
 * it, plus the lease duration ({@link PartitionDecider#runUntil}); with {@code store-lease}, until its lease in the
 * store ends. Each answer asks for the member's own lease, and the grant says how long it lasts from the moment the
 * member sent the request: never beyond the coordinator's own end, whatever the delay of the messages. A node
 * delivers to its entities only while its lease lasts ({@link #serving()}), checked before every message. A frozen
 * node, a node cut off, or the whole losing side, stops serving when its lease ends, even if it has not seen a view
 * change yet.
 *
 * <h2>Taking over</h2>
 * When a member leaves the view, the coordinator takes over its shards only after the last lease it granted the
 * member has ended ({@link #fenceFor}), so the member cannot serve any more whether it crashed, froze or is cut off,
 * and only once a winning set of members has confirmed the coordinator with pings sent after the member left
 * ({@link #confirmedSince}), which a coordinator cut off with the losing side never gets. A newly active coordinator takes over no shard that no member reports for one lease duration
 * ({@link #activationFence}), by which time every lease granted by its predecessors has ended.
 *
 * <p>Confined to the node's control thread, but for the volatile {@link #serving()} state read by entity threads.
 */
final class LeaseKeeper implements LeaseMessage.Handler {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private static final int MAX_REMEMBERED = 64;

    /** No time: no lease, no attempt yet. Times are compared only through the helpers below. */
    static final long NEVER = Long.MIN_VALUE;

    /**
     * Whether a deadline is still ahead on the monotonic clock.
     *
     * @param until the deadline, {@link #NEVER} for none, {@code Long.MAX_VALUE} for forever
     * @param now the time
     * @return true before the deadline
     */
    static boolean ahead(long until, long now) {
        return until != NEVER && (until == Long.MAX_VALUE || until - now > 0);
    }

    /** Whether time {@code a} is after time {@code b}, either of which may be {@link #NEVER}. */
    private static boolean later(long a, long b) {
        return a != NEVER && (b == NEVER || a == Long.MAX_VALUE || (b != Long.MAX_VALUE && a - b > 0));
    }

    /** Whether at least {@code nanos} passed since {@code since} ({@link #NEVER}: yes). */
    private static boolean elapsed(long since, long now, long nanos) {
        return since == NEVER || now - since >= nanos;
    }

    private final NodeRuntime node;

    private final SplitBrainSettings settings;

    private final PartitionDecider decider;

    private final boolean off;

    private final long leaseNanos;

    private final long renewNanos;

    private final long marginNanos;

    /**
     * How long a node whose lease lapsed waits for a new one before it drops its shards: long enough for the failure
     * detector to remove a lost coordinator and for the next one to take over (stable-after covers the first).
     */
    private long pauseNanos;

    private List<Member> view = List.of();

    private @Nullable Member coordinator;

    private boolean coordinating;

    private boolean viewWins = true;

    /** Whether another member was ever this node's coordinator. */
    private boolean everFollowed;

    /** Everyone seen in a view since start: a store lease held by one of them is not another cluster's. */
    private final Set<String> knownMemberIds = new HashSet<>();

    // ---- coordinator side ----

    private long round;

    private long lastPingNanos = NEVER;

    private final LinkedHashMap<Long, Long> pingSent = new LinkedHashMap<>();

    private final Map<Member, Long> confirmed = new HashMap<>();

    private final Map<Member, Long> grantedUntil = new HashMap<>();

    private long storeLeaseUntil = NEVER;

    /** When the request that last renewed the store lease was sent. */
    private long storeLeaseSentAt = NEVER;

    private boolean storeLeaseSupported = true;

    private boolean storeLeaseInFlight;

    private long lastStoreAttemptNanos = NEVER;

    private @Nullable String foreignHolder;

    // ---- member side ----

    private long requestSeq;

    private final LinkedHashMap<Long, Long> requestSent = new LinkedHashMap<>();

    private volatile long servingUntil = NEVER;

    private volatile boolean hadLease;

    /** Since when this node's lease has lapsed without its shards being dropped, or {@code NEVER}. */
    private long pausedSince = NEVER;

    private @Nullable String lastRefusal;

    /** Why this node may not serve now, or {@code null}. */
    private volatile @Nullable String partitioned;

    LeaseKeeper(NodeRuntime node, SplitBrainSettings settings, long stableAfterNanos) {
        this.node = node;
        this.settings = settings;
        this.off = settings.strategy() == SplitBrainSettings.Strategy.OFF;
        this.leaseNanos = settings.leaseDuration().toNanos();
        this.renewNanos = Math.max(1, leaseNanos / 4);
        this.marginNanos = Math.max(50_000_000L, leaseNanos / 20);
        this.decider = new PartitionDecider(settings, stableAfterNanos, skew(stableAfterNanos));
        this.pauseNanos = stableAfterNanos + leaseNanos;
        if (off) {
            servingUntil = Long.MAX_VALUE;
        }
    }

    private static long skew(long stableAfterNanos) {
        return Math.min(1_000_000_000L, Math.max(100_000_000L, stableAfterNanos / 4));
    }

    /** Sets how long a view must last to be stable, once the transport knows its failure detection time. */
    void stableAfter(long nanos) {
        decider.stableAfter(nanos, skew(nanos));
        pauseNanos = nanos + leaseNanos;
    }

    /** Whether this node was ever granted a lease (with the strategy off: always). */
    boolean hadLease() {
        return off || hadLease;
    }

    /** A member registered: ping it at once, so that it holds a lease before the next round. */
    void pingNow(Member member) {
        if (!off && coordinating && !member.equals(node.self()) && view.contains(member)) {
            Long sent = pingSent.get(round);
            if (sent == null) {
                ping(System.nanoTime());
                return;
            }
            node.send(member, new LeasePing(round), false);
        }
    }

    /** Whether this node may deliver to its entities now. Any thread. */
    boolean serving() {
        return ahead(servingUntil, System.nanoTime());
    }

    /** Whether the current view has lasted long enough to be the reference of later decisions. */
    boolean viewStable(long now) {
        return off || decider.stable(now);
    }

    /** Why this node may not serve, or {@code null} when it may (or has not had a lease yet). Any thread. */
    @Nullable String partitioned() {
        return partitioned;
    }

    /**
     * Whether this node's coordinator may allocate shards now: its side won, a winning set of members follows it
     * (or, with store-lease, it holds the store's lease), and, with a store that holds leases, it holds the store's
     * coordinator lease, so that a second cluster started on the same store by mistake never allocates too.
     */
    boolean inCharge(long now) {
        return coordinating && viewWins && foreignHolder == null && (off || ahead(runUntil(now), now))
                && (!storeLeaseSupported || ahead(storeLeaseUntil, now));
    }

    /**
     * The time until which a member that has just left the view may still serve its shards: the end of the last lease
     * this coordinator granted it. The coordinator takes them over only after that, and only once a winning set of
     * members has confirmed it since ({@link #confirmedSince}): a coordinator cut off with the losing side never
     * gets there.
     */
    long fenceFor(Member gone, long now) {
        if (off) {
            return now;
        }
        long granted = grantedUntil.getOrDefault(gone, NEVER);
        return Math.max(now, granted) + marginNanos;
    }

    /**
     * Whether a winning set of members confirmed this coordinator with pings sent after a time (with store-lease:
     * whether it renewed the store's lease with a request sent after it): its side still runs since then.
     *
     * @param since the time, on this node's clock
     * @param now the time now
     * @return true once confirmed
     */
    boolean confirmedSince(long since, long now) {
        if (off) {
            return true;
        }
        if (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE) {
            return storeLeaseSentAt != NEVER && storeLeaseSentAt - since > 0 && ahead(storeLeaseUntil, now);
        }
        Set<Member> fresh = new HashSet<>();
        fresh.add(node.self());
        confirmed.forEach((m, sent) -> {
            if (sent - since > 0) {
                fresh.add(m);
            }
        });
        return viewWins && decider.wins(fresh, decider.references(now));
    }

    /**
     * The time before which a newly active coordinator takes over no shard that no member reports: a lease its
     * predecessor granted may still cover it. A node that has been the coordinator of every view it saw (the first
     * node of a new cluster) had no predecessor and need not wait.
     */
    long activationFence(long now) {
        return off || !everFollowed ? now : now + leaseNanos + marginNanos;
    }

    /** The time before which no shard is taken over after members of another lineage joined (a merge). */
    long mergeFence(long now) {
        return off ? now : now + leaseNanos + marginNanos;
    }

    /** Whether the coordinator may give shards to a member now: it holds a lease from this coordinator. */
    boolean leased(Member m, long now) {
        if (off) {
            return true;
        }
        if (m.equals(node.self())) {
            return serving();
        }
        Long until = grantedUntil.get(m);
        return until != null && ahead(until, now);
    }

    private long runUntil(long now) {
        if (off) {
            return Long.MAX_VALUE;
        }
        if (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE) {
            return storeLeaseUntil;
        }
        confirmed.put(node.self(), now);
        return decider.runUntil(confirmed, now, leaseNanos);
    }

    // ---- views -------------------------------------------------------------------------------------------------

    /** A new view: decide, and start or stop coordinating. */
    void onView(List<Member> members, long now) {
        this.view = members;
        members.forEach(m -> knownMemberIds.add(m.id()));
        Member newCoordinator = members.isEmpty() ? null : members.get(0);
        boolean wasCoordinating = coordinating;
        coordinating = newCoordinator != null && newCoordinator.equals(node.self());
        if (newCoordinator != null && !coordinating) {
            everFollowed = true;
        }
        if (!java.util.Objects.equals(newCoordinator, coordinator)) {
            requestSent.clear();
        }
        coordinator = newCoordinator;
        confirmed.keySet().retainAll(members);
        if (coordinating && !wasCoordinating) {
            confirmed.clear();
            grantedUntil.clear();
            pingSent.clear();
            foreignHolder = null;
            storeLeaseUntil = NEVER;
            lastStoreAttemptNanos = NEVER;
        }
        // an operator's probe (removal of the sharding data) is a member for JGroups, never for the decision
        List<Member> deciding = members.stream().filter(m -> !m.name().startsWith(ClusterProbe.NAME_PREFIX))
                .toList();
        boolean wins = off || decider.onView(deciding, now);
        if (wins != viewWins) {
            viewWins = wins;
            if (!wins) {
                lose("its side of the cluster lost under split-brain strategy " + settings.strategy() + ": view "
                        + members + " against " + decider.references(now));
            } else {
                log.info("Node {} is on the winning side again (view {}); it serves what it is allocated afresh",
                        node.nodeName(), members);
            }
        }
        if (coordinating) {
            ping(now);
            renewStoreLease(now);
        }
    }

    /** A member said goodbye: its leaving is no split, so it no longer counts in the decisions. */
    void memberLeaving(Member member) {
        decider.forget(member);
    }

    private void lose(String reason) {
        if (!off) {
            servingUntil = NEVER;
        }
        pausedSince = NEVER;
        if (settings.strategy() != SplitBrainSettings.Strategy.STORE_LEASE) {
            releaseStoreLease();
            storeLeaseUntil = NEVER;
        }
        if (partitioned == null) {
            partitioned = reason;
            log.warn("Node {} stops serving: {}", node.nodeName(), reason);
            node.stopServing(reason);
        } else {
            partitioned = reason;
        }
    }

    // ---- periodic ----------------------------------------------------------------------------------------------

    /** Periodic, every control tick. */
    void tick(long now) {
        if (coordinating) {
            renewStoreLease(now);
        }
        if (off) {
            return;
        }
        if (coordinating) {
            if (elapsed(lastPingNanos, now, renewNanos)) {
                ping(now);
            }
            if (viewWins) {
                long until = runUntil(now);
                if (later(until, servingUntil)) {
                    grantSelf(until, now);
                }
            }
        }
        long until = servingUntil;
        if (hadLease && until != Long.MAX_VALUE && !ahead(until, now) && partitioned == null) {
            if (pausedSince == NEVER) {
                // entities wait (their messages are held) until a lease comes back, a coordinator change in a
                // healthy cluster takes about that long; the shards are checked against the store before they serve
                pausedSince = now;
                log.info("Node {} pauses its entities: its lease ran out (coordinator {})", node.nodeName(),
                        coordinator);
            } else if (elapsed(pausedSince, now, pauseNanos)) {
                java.time.Duration without = settings.leaseDuration().plusNanos(pauseNanos);
                String why = lastRefusal != null ? lastRefusal
                        : coordinating ? "as coordinator it has not heard from a winning set of members for over "
                                + without
                        : "it holds no lease from coordinator " + coordinator + " (none renewed for over " + without
                                + ")";
                lose(why);
            }
        }
    }

    private void ping(long now) {
        lastPingNanos = now;
        long r = ++round;
        pingSent.put(r, now);
        trim(pingSent);
        for (Member m : view) {
            if (!m.equals(node.self())) {
                node.send(m, new LeasePing(r), false);
            }
        }
    }

    private void grantSelf(long until, long now) {
        if (ahead(until, now)) {
            servingUntil = until;
            regained();
        }
    }

    private void renewStoreLease(long now) {
        if (!storeLeaseSupported || storeLeaseInFlight || !elapsed(lastStoreAttemptNanos, now, renewNanos)) {
            return;
        }
        if (settings.strategy() != SplitBrainSettings.Strategy.STORE_LEASE
                && !(viewWins && (off || ahead(runUntil(now), now)))) {
            // with the other strategies the store lease only guards against a second cluster on the store: a
            // coordinator that may not run does not hold on to it
            return;
        }
        storeLeaseInFlight = true;
        lastStoreAttemptNanos = now;
        Member self = node.self();
        ShardingStore store = node.store();
        long sent = System.nanoTime();
        store.acquireCoordinatorLease(node.clusterName(), self.id(), self.name(), settings.leaseDuration())
                .whenComplete((lease, failure) -> node.runOnControlLater(() -> {
                    storeLeaseInFlight = false;
                    if (failure != null) {
                        Throwable cause = failure instanceof CompletionException c && c.getCause() != null
                                ? c.getCause() : failure;
                        if (cause instanceof UnsupportedOperationException) {
                            storeLeaseSupported = false;
                            if (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE) {
                                log.error("Split-brain strategy store-lease needs a store that holds leases, and "
                                        + "{} does not: the coordinator on {} can never run", store.getClass()
                                        .getName(), node.nodeName());
                            }
                        } else {
                            log.warn("Cannot renew the coordinator lease in the store: {}", cause.toString());
                        }
                        return;
                    }
                    if (!coordinating) {
                        return;
                    }
                    if (lease.granted()) {
                        boolean held = ahead(storeLeaseUntil, System.nanoTime());
                        storeLeaseUntil = sent + Math.min(lease.remaining().toNanos(), leaseNanos);
                        storeLeaseSentAt = sent;
                        if (foreignHolder != null) {
                            log.info("Coordinator on {} holds the store's coordinator lease again", node.nodeName());
                            foreignHolder = null;
                        }
                        if (!held) {
                            node.coordinatorMayRun();
                            if (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE) {
                                grantSelf(storeLeaseUntil, System.nanoTime());
                            }
                        }
                    } else if (!knownMemberIds.contains(lease.holderId())) {
                        if (foreignHolder == null) {
                            log.error("Another cluster named '{}' runs on this store: its coordinator {} ({}) holds "
                                    + "the store's coordinator lease, and it is not a member of this cluster {}. This "
                                    + "coordinator allocates no shard while it does; check that every node lists "
                                    + "the others in sharding.jgroups.initial-hosts", node.clusterName(),
                                    lease.holderName(), lease.holderId(), view);
                        }
                        foreignHolder = lease.holderName();
                    }
                }));
    }

    /** A coordinator that stops gives up its store lease, so that the next one need not wait for it. */
    void releaseStoreLease() {
        if (coordinating && storeLeaseSupported) {
            try {
                node.store().releaseCoordinatorLease(node.clusterName(), node.self().id());
            } catch (RuntimeException e) {
                log.debug("Releasing the store lease failed", e);
            }
        }
    }

    /** The member holding the store's coordinator lease that is not of this cluster, or {@code null}. */
    @Nullable String foreignHolder() {
        return foreignHolder;
    }

    // ---- messages ----------------------------------------------------------------------------------------------

    /** The coordinator pings: answer only one's own coordinator. */
    @Override
    public void onPing(Member from, LeasePing ping) {
        if (off || !from.equals(coordinator) || coordinating) {
            return;
        }
        long seq = ++requestSeq;
        requestSent.put(seq, System.nanoTime());
        trim(requestSent);
        node.send(from, new LeasePong(ping.round(), seq), false);
    }

    /** A member answers a ping. */
    @Override
    public void onPong(Member from, LeasePong pong) {
        if (off || !coordinating) {
            return;
        }
        long now = System.nanoTime();
        if (!view.contains(from)) {
            node.send(from, new LeaseRefused(pong.request(), LeaseRefused.NOT_A_MEMBER + ": " + from
                    + " is not in the view " + view + " of coordinator " + node.nodeName()), false);
            return;
        }
        Long sent = pingSent.get(pong.round());
        if (sent != null) {
            confirmed.merge(from, sent, Math::max);
        }
        long until = runUntil(now);
        String refusal = !viewWins ? "coordinator " + node.nodeName() + " is on the losing side of a partition"
                : foreignHolder != null ? "coordinator " + node.nodeName() + " may not run: another cluster ("
                        + foreignHolder + ") holds the store's coordinator lease"
                : !ahead(until, now) ? (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE
                        ? "coordinator " + node.nodeName() + " does not hold the store's coordinator lease"
                        : "coordinator " + node.nodeName() + " has not heard from a winning set of members")
                : null;
        if (refusal != null) {
            node.send(from, new LeaseRefused(pong.request(), refusal), false);
            return;
        }
        boolean first = !leased(from, now);
        grantedUntil.merge(from, until, Math::max);
        node.send(from, new LeaseGrant(pong.request(), until - now), false);
        if (later(until, servingUntil)) {
            grantSelf(until, now);
        }
        if (first) {
            node.coordinatorMayRun();
        }
    }

    /** The coordinator grants a lease. */
    @Override
    public void onGrant(Member from, LeaseGrant grant) {
        if (off || !from.equals(coordinator)) {
            return;
        }
        Long sent = requestSent.get(grant.request());
        if (sent == null) {
            return;
        }
        for (Iterator<Long> it = requestSent.keySet().iterator(); it.hasNext();) {
            if (it.next() <= grant.request()) {
                it.remove();
            }
        }
        long until = sent + Math.min(grant.validForNanos(), leaseNanos);
        if (later(until, servingUntil)) {
            servingUntil = until;
        }
        lastRefusal = null;
        if (viewWins && serving()) {
            regained();
        }
    }

    /** The coordinator refuses a lease; the current one, if any, runs out. */
    @Override
    public void onRefused(Member from, LeaseRefused refused) {
        if (off || !from.equals(coordinator)) {
            return;
        }
        lastRefusal = refused.reason();
        if (refused.notMember() && hadLease) {
            // this node was removed from the cluster (it froze or was cut off) and its shards were taken over
            lose(refused.reason());
        }
    }

    private void regained() {
        hadLease = true;
        if (partitioned != null && viewWins) {
            log.info("Node {} holds a lease again and serves what it is allocated afresh", node.nodeName());
            partitioned = null;
            pausedSince = NEVER;
            node.resumeServing();
        } else if (pausedSince != NEVER) {
            log.info("Node {} holds a lease again; checking its shards against the store", node.nodeName());
            pausedSince = NEVER;
            node.resumeServing();
        }
    }

    private static void trim(LinkedHashMap<Long, Long> map) {
        while (map.size() > MAX_REMEMBERED) {
            Iterator<Long> it = map.keySet().iterator();
            it.next();
            it.remove();
        }
    }
}
