package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.ahead;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.coordinator.AllocationLeases;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeaseMessage;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import dev.sharding.internal.transport.ClusterProbe;
import java.util.List;
import java.util.Objects;
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
 * ({@link #confirmedSince}), which a coordinator cut off with the losing side never gets. A newly active coordinator
 * takes over no shard that no member reports until every lease its predecessors granted has ended
 * ({@link #confirmedActivationFence}): one lease after the latest answer to an earlier coordinator among the first
 * winning set that confirmed it, as their pongs say. Nor, later, while a lease may last that another coordinator
 * granted on the answer of a member that had confirmed this one and came back (a link broke and healed, and the
 * member's views lost this coordinator and found it again while this coordinator's view kept the member): one lease
 * after that answer, as the member's pong says.
 *
 * <h2>Strategies</h2>
 * What differs by split-brain strategy is chosen once, at construction ({@link Leases#of}): {@link NoLeases} for
 * strategy off, {@link SplitBrainLeases} for the others, with the {@link CoordinatorRight} of the strategy. This class
 * keeps what they share: the view and who coordinates, the store's lease, and the clocks.
 *
 * <p>Confined to the node's control thread, but for the volatile {@link #serving()} state read by entity threads.
 */
public final class LeaseKeeper implements LeaseMessage.Handler, AllocationLeases {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final LeaseHost node;

    private final LeaseEvents events = new LeaseEvents();

    private final StoreLease storeLease;

    /** What the split-brain strategy makes of views and leases. */
    private final Leases leases;

    private final long leaseNanos;

    /** Whether the store's lease is what lets a coordinator run (store-lease), not only a guard against a second cluster. */
    private final boolean storeLeaseIsTheRight;

    private List<Member> view = List.of();

    private @Nullable Member coordinator;

    private boolean coordinating;

    /** Whether another member was ever this node's coordinator. */
    private boolean everFollowed;

    /** The monotonic and wall clocks' times at the last tick, to notice a suspension ({@link #checkClockJump}). */
    private long lastTickNanos = LeaseTimes.NEVER;

    private long lastTickWallMillis;

    public LeaseKeeper(LeaseHost node, SplitBrainSettings settings, long stableAfterNanos) {
        this.node = node;
        this.leaseNanos = settings.leaseDuration().toNanos();
        this.storeLeaseIsTheRight = settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE;
        this.storeLease =
                new StoreLease(node, settings, leaseNanos, LeaseTimes.renewNanos(leaseNanos), new StoreAnswers());
        this.leases = Leases.of(node, events, settings, stableAfterNanos, storeLease);
    }

    /** What the store's answers mean here: read only while this node coordinates, and a lease regained. */
    private final class StoreAnswers implements StoreLease.Listener {

        @Override
        public boolean coordinating() {
            return coordinating;
        }

        @Override
        public void regained(long until) {
            events.coordinatorMayRun();
            leases.storeLeaseRegained(until, System.nanoTime());
        }

        @Override
        public void storeUsedByAnotherCluster(String reason) {
            events.storeUsedByAnotherCluster(reason);
        }
    }

    /**
     * Tells a part of the node what the leases decide (whether it serves, whether its coordinator may allocate). Called
     * while the node is assembled, before it starts.
     */
    public void listen(LeaseListener listener) {
        events.add(listener);
    }

    /** Sets how long a view must last to be stable, once the transport knows its failure detection time. */
    public void stableAfter(long nanos) {
        leases.stableAfter(nanos);
    }

    /** Whether this node was ever granted a lease (with the strategy off: always). */
    public boolean hadLease() {
        return leases.hadLease();
    }

    /** A member registered: ping it at once, so that it holds a lease before the next round. */
    public void pingNow(Member member) {
        if (coordinating && !member.equals(node.self()) && view.contains(member)) {
            leases.pingNow(member, view);
        }
    }

    /** Whether this node may deliver to its entities now. Any thread. */
    public boolean serving() {
        return leases.serving();
    }

    /** Whether the current view has lasted long enough to be the reference of later decisions. */
    public boolean viewStable(long now) {
        return leases.viewStable(now);
    }

    /** Why this node may not serve, or {@code null} when it may (or has not had a lease yet). Any thread. */
    @Nullable
    public String partitioned() {
        return leases.partitioned();
    }

    /**
     * Whether this node's coordinator may allocate shards now: its side won, a winning set of members follows it
     * (or, with store-lease, it holds the store's lease), and, with a store that holds leases, it holds the store's
     * coordinator lease, so that a second cluster started on the same store by mistake never allocates too.
     */
    @Override
    public boolean inCharge(long now) {
        return coordinating
                && storeLease.foreignHolder() == null
                && leases.coordinatorRuns(now)
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
        return leases.fenceFor(gone, now);
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
        return leases.confirmedSince(since, now);
    }

    /**
     * The time before which a newly active coordinator takes over no shard that no member reports, judged when it
     * activates: a lease its predecessor granted may still cover it. Where members confirm the coordinator this is
     * now, and {@link #confirmedActivationFence} does the waiting; with store-lease one lease from now. A node that has
     * been the coordinator of every view it saw (the first node of a new cluster) had no predecessor and need not wait.
     */
    @Override
    public long activationFence(long now) {
        return leases.activationFence(everFollowed, now);
    }

    @Override
    public long confirmedActivationFence(long now) {
        return leases.confirmedActivationFence(everFollowed, now);
    }

    /** The time before which no shard is taken over after members of another lineage joined (a merge). */
    @Override
    public long mergeFence(long now) {
        return leases.mergeFence(now);
    }

    /** Whether the coordinator may give shards to a member now: it holds a lease from this coordinator. */
    @Override
    public boolean leased(Member m, long now) {
        return leases.leased(m, now);
    }

    /** Whether this node's side won the last decision. */
    boolean viewWins() {
        return leases.viewWins();
    }

    /** Until when this node may serve. */
    long servingUntil() {
        return leases.servingUntil();
    }

    // ---- views -------------------------------------------------------------------------------------------------

    /** A new view: decide, and start or stop coordinating. */
    public void onView(List<Member> members, long now) {
        this.view = members;
        storeLease.knownMembers(members);
        Member newCoordinator = members.isEmpty() ? null : members.get(0);
        boolean wasCoordinating = coordinating;
        coordinating = newCoordinator != null && newCoordinator.equals(node.self());
        if (newCoordinator != null && !coordinating) {
            everFollowed = true;
        }
        boolean coordinatorChanged = !Objects.equals(newCoordinator, coordinator);
        coordinator = newCoordinator;
        boolean becameCoordinator = coordinating && !wasCoordinating;
        leases.newView(members, coordinatorChanged, becameCoordinator, wasCoordinating && !coordinating, now);
        if (becameCoordinator) {
            storeLease.reset();
        } else if (wasCoordinating && !coordinating) {
            handOverStoreLease();
        }
        // an operator's probe (removal of the sharding data) is a member for JGroups, never for the decision: known by
        // the mark in its address, which came in a sealed view, not by its name, which anyone may forge in discovery
        List<Member> deciding =
                members.stream().filter(m -> !ClusterProbe.isProbe(m)).toList();
        leases.decide(members, deciding, coordinating, now);
        if (coordinating) {
            leases.ping(members, now);
            renewStoreLease(now);
        }
    }

    /**
     * Another member coordinates this node's view now (a merge put it first). Where the store's lease only guards
     * against a second cluster, it is given up at once, so that the new coordinator, which allocates only while it
     * holds it, need not wait for it to run out. With store-lease it is the right to run, which this node's grants
     * rested on: it runs out, as the new coordinator's activation fence assumes.
     */
    private void handOverStoreLease() {
        if (!storeLeaseIsTheRight) {
            storeLease.release(true);
            storeLease.lapse();
        }
    }

    /**
     * A member said goodbye: its leaving is no split, so it no longer counts in the decisions once the view without it
     * comes ({@link PartitionDecider#leaving}).
     */
    public void memberLeaving(Member member) {
        leases.memberLeaving(member);
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
        leases.tick(now, view, coordinating, coordinator);
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
        if (lastTickNanos != LeaseTimes.NEVER) {
            long jump = TimeUnit.MILLISECONDS.toNanos(wallMillis - lastTickWallMillis) - (now - lastTickNanos);
            if (jump > leaseNanos / 8) {
                log.warn(
                        "Node {}: the wall clock advanced {} ms more than the monotonic clock since the last check (the"
                                + " host or virtual machine was suspended, or the clock was stepped): its leases are"
                                + " taken as run out, its entities wait until a new lease, and its shards are checked"
                                + " against the store before they serve",
                        node.nodeName(),
                        TimeUnit.NANOSECONDS.toMillis(jump));
                leases.clockJumped(coordinating);
                if (coordinating) {
                    storeLease.lapse();
                }
            }
        }
        lastTickNanos = now;
        lastTickWallMillis = wallMillis;
    }

    private void renewStoreLease(long now) {
        storeLease.renew(now, () -> leases.mayHoldStoreLease(now));
    }

    /**
     * The coordinator refused this node for good: it never asks the store for the coordinator lease, even as the
     * coordinator (see {@link StoreLease#refusedForGood}).
     */
    public void refusedForGood() {
        storeLease.refusedForGood();
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
        if (!from.equals(coordinator) || coordinating) {
            return;
        }
        leases.onPing(from, ping);
    }

    /** A member answers a ping. */
    @Override
    public void onPong(Member from, LeasePong pong) {
        if (!coordinating) {
            return;
        }
        leases.onPong(from, pong, view);
    }

    /** The coordinator grants a lease. */
    @Override
    public void onGrant(Member from, LeaseGrant grant) {
        if (!from.equals(coordinator)) {
            return;
        }
        leases.onGrant(grant);
    }

    /** The coordinator refuses a lease; the current one, if any, runs out. */
    @Override
    public void onRefused(Member from, LeaseRefused refused) {
        if (!from.equals(coordinator)) {
            return;
        }
        leases.onRefused(refused, coordinating);
    }
}
