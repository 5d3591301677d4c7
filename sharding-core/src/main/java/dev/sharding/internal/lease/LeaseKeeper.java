package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.later;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.ClusterProbe;
import dev.sharding.internal.coordinator.AllocationLeases;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeaseMessage;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
public final class LeaseKeeper implements LeaseMessage.Handler, AllocationLeases {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    /** No time: no lease, no attempt yet (see {@link LeaseTimes}). */
    static final long NEVER = LeaseTimes.NEVER;

    /**
     * Whether a deadline is still ahead on the monotonic clock.
     *
     * @param until the deadline, {@link #NEVER} for none, {@code Long.MAX_VALUE} for forever
     * @param now the time
     * @return true before the deadline
     */
    static boolean ahead(long until, long now) {
        return LeaseTimes.ahead(until, now);
    }

    private final LeaseHost node;

    private final SplitBrainSettings settings;

    private final PartitionDecider decider;

    private final StoreLease storeLease;

    private final CoordinatorLeases granting;

    private final boolean off;

    private final long leaseNanos;

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

    /** This node's own lease. */
    private final MemberLease own;

    public LeaseKeeper(LeaseHost node, SplitBrainSettings settings, long stableAfterNanos) {
        this.node = node;
        this.settings = settings;
        this.off = settings.strategy() == SplitBrainSettings.Strategy.OFF;
        this.leaseNanos = settings.leaseDuration().toNanos();
        long renewNanos = Math.max(1, leaseNanos / 4);
        long marginNanos = Math.max(50_000_000L, leaseNanos / 20);
        this.decider = new PartitionDecider(settings, stableAfterNanos, skew(stableAfterNanos));
        this.pauseNanos = stableAfterNanos + leaseNanos;
        this.storeLease = new StoreLease(node, settings, leaseNanos, renewNanos, new StoreLease.Listener() {
            @Override
            public boolean coordinating() {
                return coordinating;
            }

            @Override
            public void regained(long until) {
                node.coordinatorMayRun();
                if (settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE) {
                    grantSelf(until, System.nanoTime());
                }
            }
        });
        this.own = new MemberLease(node, leaseNanos, off);
        this.granting =
                new CoordinatorLeases(node, this, settings, decider, storeLease, leaseNanos, renewNanos, marginNanos);
    }

    private static long skew(long stableAfterNanos) {
        return Math.min(1_000_000_000L, Math.max(100_000_000L, stableAfterNanos / 4));
    }

    /** Sets how long a view must last to be stable, once the transport knows its failure detection time. */
    public void stableAfter(long nanos) {
        decider.stableAfter(nanos, skew(nanos));
        pauseNanos = nanos + leaseNanos;
    }

    /** Whether this node was ever granted a lease (with the strategy off: always). */
    public boolean hadLease() {
        return off || own.hadLease();
    }

    /** A member registered: ping it at once, so that it holds a lease before the next round. */
    public void pingNow(Member member) {
        if (!off && coordinating && !member.equals(node.self()) && view.contains(member)) {
            granting.pingNow(member);
        }
    }

    /** Whether this node may deliver to its entities now. Any thread. */
    public boolean serving() {
        return own.serving();
    }

    /** Whether the current view has lasted long enough to be the reference of later decisions. */
    public boolean viewStable(long now) {
        return off || decider.stable(now);
    }

    /** Why this node may not serve, or {@code null} when it may (or has not had a lease yet). Any thread. */
    @Nullable
    public String partitioned() {
        return own.partitioned();
    }

    /**
     * Whether this node's coordinator may allocate shards now: its side won, a winning set of members follows it
     * (or, with store-lease, it holds the store's lease), and, with a store that holds leases, it holds the store's
     * coordinator lease, so that a second cluster started on the same store by mistake never allocates too.
     */
    @Override
    public boolean inCharge(long now) {
        return coordinating
                && viewWins
                && storeLease.foreignHolder() == null
                && (off || ahead(granting.runUntil(now), now))
                && (!storeLease.supported() || ahead(storeLease.until(), now));
    }

    /**
     * The time until which a member that has just left the view may still serve its shards: the end of the last lease
     * this coordinator granted it. The coordinator takes them over only after that, and only once a winning set of
     * members has confirmed it since ({@link #confirmedSince}): a coordinator cut off with the losing side never
     * gets there.
     */
    @Override
    public long fenceFor(Member gone, long now) {
        return off ? now : granting.fenceFor(gone, now);
    }

    /**
     * Whether a winning set of members confirmed this coordinator with pings sent after a time (with store-lease:
     * whether it renewed the store's lease with a request sent after it): its side still runs since then.
     *
     * @param since the time, on this node's clock
     * @param now the time now
     * @return true once confirmed
     */
    @Override
    public boolean confirmedSince(long since, long now) {
        return off || granting.confirmedSince(since, now);
    }

    /**
     * The time before which a newly active coordinator takes over no shard that no member reports: a lease its
     * predecessor granted may still cover it. A node that has been the coordinator of every view it saw (the first
     * node of a new cluster) had no predecessor and need not wait.
     */
    @Override
    public long activationFence(long now) {
        return off || !everFollowed ? now : now + leaseNanos + marginNanos();
    }

    @Override
    public long confirmedActivationFence(long now) {
        if (off) {
            return Long.MIN_VALUE;
        }
        if (!everFollowed) {
            // a cluster of its own (started where it could not reach the others) that found another cluster's
            // coordinator holding the store's lease: that cluster may still serve what this one would place. Once this
            // one holds the lease, the other's coordinator learns it at its next renewal (each quarter lease) and
            // refuses its members' leases and its own, so they stop within one lease more.
            if (!storeLease.foreignSeen()) {
                return Long.MIN_VALUE;
            }
            long since = storeLease.heldSince();
            return since == NEVER ? Long.MAX_VALUE : since + 2 * leaseNanos + marginNanos();
        }
        long confirmedAt = granting.activationConfirmedAt(now);
        return confirmedAt == NEVER ? Long.MAX_VALUE : confirmedAt + leaseNanos + marginNanos();
    }

    /** The time before which no shard is taken over after members of another lineage joined (a merge). */
    @Override
    public long mergeFence(long now) {
        return off ? now : now + leaseNanos + marginNanos();
    }

    private long marginNanos() {
        return Math.max(50_000_000L, leaseNanos / 20);
    }

    /** Whether the coordinator may give shards to a member now: it holds a lease from this coordinator. */
    @Override
    public boolean leased(Member m, long now) {
        if (off) {
            return true;
        }
        if (m.equals(node.self())) {
            return serving();
        }
        return granting.leased(m, now);
    }

    /** The members of the current view, for the coordinator side. */
    List<Member> view() {
        return view;
    }

    /** Whether this node's side won the last decision. */
    boolean viewWins() {
        return viewWins;
    }

    /** Until when this node may serve. */
    long servingUntil() {
        return own.servingUntil();
    }

    // ---- views -------------------------------------------------------------------------------------------------

    /** A new view: decide, and start or stop coordinating. */
    /** The monotonic and wall clocks' times at the last tick, to notice a suspension ({@link #checkClockJump}). */
    private long lastTickNanos = NEVER;

    private long lastTickWallMillis;

    /** Whether the last view had more members than static-quorum's quorum-size allows (warned once). */
    private boolean tooManyForTheQuorum;

    public void onView(List<Member> members, long now) {
        this.view = members;
        storeLease.knownMembers(members);
        Member newCoordinator = members.isEmpty() ? null : members.get(0);
        boolean wasCoordinating = coordinating;
        coordinating = newCoordinator != null && newCoordinator.equals(node.self());
        if (newCoordinator != null && !coordinating) {
            everFollowed = true;
        }
        if (!java.util.Objects.equals(newCoordinator, coordinator)) {
            own.coordinatorChanged();
        }
        coordinator = newCoordinator;
        granting.retain(members);
        if (coordinating && !wasCoordinating) {
            granting.reset();
            storeLease.reset();
        }
        // an operator's probe (removal of the sharding data) is a member for JGroups, never for the decision: known by
        // the mark in its address, which came in a sealed view, not by its name, which anyone may forge in discovery
        List<Member> deciding =
                members.stream().filter(m -> !ClusterProbe.isProbe(m)).toList();
        warnIfTooManyForTheQuorum(deciding.size());
        boolean wins = off || decider.onView(deciding, now);
        if (wins != viewWins) {
            viewWins = wins;
            if (!wins) {
                lose("its side of the cluster lost under split-brain strategy " + settings.strategy() + ": view "
                        + members + " against " + decider.references(now));
            } else {
                log.info(
                        "Node {} is on the winning side again (view {}); it serves what it is allocated afresh",
                        node.nodeName(),
                        members);
            }
        }
        if (coordinating) {
            granting.ping(now);
            renewStoreLease(now);
        }
    }

    /**
     * Under {@code static-quorum}, warns when the cluster grows beyond {@code 2 * quorum-size - 1} members (once, until
     * it shrinks back): two sides of a split could then both hold a quorum, so a split stops every side.
     */
    private void warnIfTooManyForTheQuorum(int members) {
        if (settings.strategy() != SplitBrainSettings.Strategy.STATIC_QUORUM) {
            return;
        }
        int max = decider.maxStaticQuorumMembers();
        if (members > max && !tooManyForTheQuorum) {
            log.warn(
                    "Cluster {} has {} members under split-brain strategy static-quorum with quorum-size {}: more than"
                            + " {} (2 * quorum-size - 1), so both sides of a split could hold a quorum. Any split now"
                            + " stops every side. Raise sharding.split-brain.quorum-size to at least {}, or keep the"
                            + " cluster at {} members or fewer.",
                    node.clusterName(),
                    members,
                    settings.quorumSize(),
                    max,
                    members / 2 + 1,
                    max);
        }
        tooManyForTheQuorum = members > max;
    }

    /**
     * A member said goodbye: its leaving is no split, so it no longer counts in the decisions once the view without it
     * comes ({@link PartitionDecider#leaving}).
     */
    public void memberLeaving(Member member) {
        decider.leaving(member);
    }

    private void lose(String reason) {
        if (settings.strategy() != SplitBrainSettings.Strategy.STORE_LEASE) {
            releaseStoreLease();
            storeLease.lapse();
        }
        own.lose(reason, off);
    }

    // ---- periodic ----------------------------------------------------------------------------------------------

    /** Periodic, every control tick. */
    public void tick(long now) {
        tick(now, System.currentTimeMillis());
    }

    /**
     * The periodic check, with the wall clock's time beside the monotonic one.
     *
     * @param now the monotonic time ({@link System#nanoTime()})
     * @param wallMillis the wall clock's time ({@link System#currentTimeMillis()})
     */
    void tick(long now, long wallMillis) {
        checkClockJump(now, wallMillis);
        if (coordinating) {
            renewStoreLease(now);
        }
        if (off) {
            return;
        }
        if (coordinating) {
            if (granting.pingDue(now)) {
                granting.ping(now);
            }
            // a coordinator that found another cluster holding the store's lease does not run, nor does its node
            if (viewWins && storeLease.foreignHolder() == null) {
                long until = granting.runUntil(now);
                if (later(until, own.servingUntil())) {
                    grantSelf(until, now);
                }
            }
        }
        String lost = own.checkLapse(now, pauseNanos, settings.leaseDuration(), coordinating, coordinator);
        if (lost != null) {
            lose(lost);
        }
    }

    /**
     * Leases run on the monotonic clock, which stands still while the host or virtual machine is suspended (not
     * while the process is stopped or paused by a collector): after a resume, a lease would seem to last for as long
     * as the suspension, while the others' clocks ran and they may have re-placed its shards. The wall clock keeps
     * running through a suspension, so when it advanced between two ticks by more than an eighth of the lease beyond
     * the monotonic clock, every lease time this node holds is taken as run out: its own lease lapses (its entities
     * wait, and its shards are checked against the store when a lease comes back), a coordinator forgets its members'
     * confirmations and its store lease. A wall clock stepped forward (by an operator, or NTP at boot) does the same:
     * a pause of the entities, never two owners.
     */
    private void checkClockJump(long now, long wallMillis) {
        if (lastTickNanos != NEVER) {
            long jump = TimeUnit.MILLISECONDS.toNanos(wallMillis - lastTickWallMillis) - (now - lastTickNanos);
            if (jump > leaseNanos / 8) {
                log.warn(
                        "Node {}: the wall clock advanced {} ms more than the monotonic clock since the last check (the"
                                + " host or virtual machine was suspended, or the clock was stepped): its leases are"
                                + " taken as run out, its entities wait until a new lease, and its shards are checked"
                                + " against the store before they serve",
                        node.nodeName(),
                        TimeUnit.NANOSECONDS.toMillis(jump));
                own.expire();
                if (coordinating) {
                    granting.forgetConfirmations();
                    storeLease.lapse();
                }
            }
        }
        lastTickNanos = now;
        lastTickWallMillis = wallMillis;
    }

    /** This coordinator may run until a later time: so may its own node. */
    void grantSelf(long until, long now) {
        own.extend(until, now, viewWins);
    }

    private void renewStoreLease(long now) {
        storeLease.renew(now, () -> viewWins && (off || ahead(granting.runUntil(now), now)));
    }

    /** A coordinator that stops gives up its store lease, so that the next one need not wait for it. */
    public void releaseStoreLease() {
        storeLease.release(coordinating);
    }

    /** The member holding the store's coordinator lease that is not of this cluster, or {@code null}. */
    @Nullable
    String foreignHolder() {
        return storeLease.foreignHolder();
    }

    // ---- messages ----------------------------------------------------------------------------------------------

    /** The coordinator pings: answer only one's own coordinator. */
    @Override
    public void onPing(Member from, LeasePing ping) {
        if (off || !from.equals(coordinator) || coordinating) {
            return;
        }
        own.onPing(from, ping);
    }

    /** A member answers a ping. */
    @Override
    public void onPong(Member from, LeasePong pong) {
        if (off || !coordinating) {
            return;
        }
        granting.onPong(from, pong);
    }

    /** The coordinator grants a lease. */
    @Override
    public void onGrant(Member from, LeaseGrant grant) {
        if (off || !from.equals(coordinator)) {
            return;
        }
        own.onGrant(grant, viewWins);
    }

    /** The coordinator refuses a lease; the current one, if any, runs out. */
    @Override
    public void onRefused(Member from, LeaseRefused refused) {
        if (off || !from.equals(coordinator)) {
            return;
        }
        if (own.onRefused(refused)) {
            // this node was removed from the cluster (it froze or was cut off) and its shards were taken over
            lose(refused.reason());
        }
    }
}
