package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.NEVER;
import static dev.sharding.internal.lease.LeaseTimes.ahead;
import static dev.sharding.internal.lease.LeaseTimes.later;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every split-brain strategy but off: each view decided by the {@link PartitionDecider}, this node's own lease
 * ({@link MemberLease}), and the coordinator's grants ({@link CoordinatorLeases}) under the strategy's
 * {@link CoordinatorRight}. The {@link LeaseKeeper}'s class comment says how they fit.
 *
 * <p>Control thread, but for {@link #serving()} and {@link #partitioned()}, read by any thread.
 */
final class SplitBrainLeases implements Leases {

    private static final Logger log = LoggerFactory.getLogger(SplitBrainLeases.class);

    private final LeaseHost node;

    private final SplitBrainSettings settings;

    private final PartitionDecider decider;

    private final CoordinatorRight right;

    private final StoreLease storeLease;

    private final CoordinatorLeases granting;

    /** This node's own lease. */
    private final MemberLease own;

    private final long leaseNanos;

    private final long marginNanos;

    /**
     * How long a node whose lease lapsed waits for a new one before it drops its shards: long enough for the failure
     * detector to remove a lost coordinator and for the next one to take over (stable-after covers the first).
     */
    private long pauseNanos;

    private boolean viewWins = true;

    /** Whether this term's fence on its predecessors' leases was logged. */
    private boolean fenceLogged;

    /** Whether the last view had more members than static-quorum's quorum-size allows (warned once). */
    private boolean tooManyForTheQuorum;

    SplitBrainLeases(
            LeaseHost node,
            LeaseListener events,
            SplitBrainSettings settings,
            long stableAfterNanos,
            PartitionDecider decider,
            CoordinatorRight right,
            StoreLease storeLease) {
        this.node = node;
        this.settings = settings;
        this.decider = decider;
        this.right = right;
        this.storeLease = storeLease;
        this.leaseNanos = settings.leaseDuration().toNanos();
        this.marginNanos = Math.max(50_000_000L, leaseNanos / 20);
        this.pauseNanos = stableAfterNanos + leaseNanos;
        this.own = new MemberLease(node, events, leaseNanos);
        this.granting = new CoordinatorLeases(node, events, this, right, storeLease, leaseNanos, marginNanos);
    }

    /** How far apart in time members may install one view, for a stable-after. */
    static long skew(long stableAfterNanos) {
        return Math.min(1_000_000_000L, Math.max(100_000_000L, stableAfterNanos / 4));
    }

    @Override
    public boolean serving() {
        return own.serving();
    }

    @Override
    public @Nullable String partitioned() {
        return own.partitioned();
    }

    @Override
    public long servingUntil() {
        return own.servingUntil();
    }

    @Override
    public boolean hadLease() {
        return own.hadLease();
    }

    @Override
    public boolean viewWins() {
        return viewWins;
    }

    @Override
    public boolean viewStable(long now) {
        return decider.stable(now);
    }

    @Override
    public void stableAfter(long nanos) {
        decider.stableAfter(nanos, skew(nanos));
        pauseNanos = nanos + leaseNanos;
    }

    /** Its leaving no longer counts in the decisions once the view without it comes ({@link PartitionDecider#leaving}). */
    @Override
    public void memberLeaving(Member member) {
        decider.leaving(member);
    }

    @Override
    public void newView(
            List<Member> members,
            boolean coordinatorChanged,
            boolean becameCoordinator,
            boolean stoppedCoordinating,
            long now) {
        if (stoppedCoordinating) {
            own.stoppedCoordinating(now);
        }
        if (coordinatorChanged) {
            own.coordinatorChanged();
        }
        granting.retain(members);
        if (becameCoordinator) {
            granting.reset(now);
            fenceLogged = false;
        }
    }

    @Override
    public void decide(List<Member> members, List<Member> deciding, boolean coordinating, long now) {
        warnIfTooManyForTheQuorum(deciding.size());
        boolean wins = decider.onView(deciding, now);
        if (wins != viewWins) {
            viewWins = wins;
            if (!wins) {
                lose(
                        "its side of the cluster lost under split-brain strategy " + settings.strategy() + ": view "
                                + members + " against " + decider.references(now),
                        coordinating);
            } else {
                log.info(
                        "Node {} is on the winning side again (view {}); it serves what it is allocated afresh",
                        node.nodeName(),
                        members);
            }
        }
    }

    /**
     * Under {@code static-quorum}, warns when the cluster grows beyond {@code 2 * quorum-size - 1} members (once, until
     * it shrinks back): two sides of a split could then both hold a quorum, so a split stops every side.
     */
    private void warnIfTooManyForTheQuorum(int members) {
        boolean tooMany = decider.tooManyForTheQuorum(members);
        int max = decider.maxStaticQuorumMembers();
        if (tooMany && !tooManyForTheQuorum) {
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
        tooManyForTheQuorum = tooMany;
    }

    private void lose(String reason, boolean coordinating) {
        right.sideLost(coordinating);
        own.lose(reason);
    }

    @Override
    public void ping(List<Member> view, long now) {
        granting.ping(view, now);
    }

    @Override
    public void pingNow(Member member, List<Member> view) {
        granting.pingNow(member, view);
    }

    @Override
    public boolean coordinatorRuns(long now) {
        return viewWins && ahead(granting.runUntil(now), now);
    }

    @Override
    public boolean mayHoldStoreLease(long now) {
        return right.mayHoldStoreLease(coordinatorRuns(now));
    }

    @Override
    public void storeLeaseRegained(long until, long now) {
        right.storeLeaseRegained(until, now, this);
    }

    @Override
    public long fenceFor(Member gone, long now) {
        return granting.fenceFor(gone, now);
    }

    @Override
    public boolean confirmedSince(long since, long now) {
        return granting.confirmedSince(since, now);
    }

    /**
     * Nothing to wait for on activation itself where members confirm the coordinator: the predecessors' leases are
     * bounded once a winning set has ({@link #confirmedActivationFence}). With store-lease, one lease from now.
     */
    @Override
    public long activationFence(boolean everFollowed, long now) {
        return !everFollowed || right instanceof CoordinatorRight.ConfirmedByMembers
                ? now
                : now + leaseNanos + marginNanos;
    }

    /**
     * The later of the fence on this coordinator's predecessors' leases and the fence on the leases of a coordinator
     * that members answered after they had confirmed this one ({@link CoordinatorLeases#strayFence}), which a
     * coordinator that never followed another needs too: it may be the one whose members strayed.
     */
    @Override
    public long confirmedActivationFence(boolean everFollowed, long now) {
        long fence = predecessorsFence(everFollowed, now);
        return LeaseTimes.latest(granting.strayFence(), fence);
    }

    private long predecessorsFence(boolean everFollowed, long now) {
        if (!everFollowed) {
            // a cluster of its own (started where it could not reach the others) that found another cluster's
            // coordinator holding the store's lease: that cluster may still serve what this one would place. Once this
            // one holds the lease, the other's coordinator learns it at its next renewal (each quarter lease) and
            // refuses its members' leases and its own, so they stop within one lease more.
            if (!storeLease.foreignSeen()) {
                return Long.MIN_VALUE;
            }
            long since = storeLease.heldSince();
            return since == NEVER ? Long.MAX_VALUE : since + 2 * leaseNanos + marginNanos;
        }
        long confirmedAt = granting.activationConfirmedAt(now);
        if (confirmedAt == NEVER) {
            return Long.MAX_VALUE;
        }
        long fence = predecessorsEnd(confirmedAt) + marginNanos;
        if (!fenceLogged) {
            fenceLogged = true;
            log.info(
                    "Coordinator on {} is confirmed by a winning set of members; shards nobody reports wait {} ms more,"
                            + " until its predecessors' leases have surely ended",
                    node.nodeName(),
                    Math.max(0, (fence - now) / 1_000_000));
        }
        return fence;
    }

    /**
     * When every lease granted before this coordinator's term has ended, once a winning set confirmed it at
     * {@code confirmedAt}: one lease after that (a member that confirms this coordinator confirms no other), or, where
     * members confirm the coordinator, one lease after the last answer any of that set gave an earlier coordinator,
     * which is sooner: a predecessor that crashed was last confirmed about when it crashed, not when this one took over.
     * Never before the end of a grant this node made in an earlier term of its own.
     */
    private long predecessorsEnd(long confirmedAt) {
        long byConfirmation = confirmedAt + leaseNanos;
        if (!(right instanceof CoordinatorRight.ConfirmedByMembers)) {
            return byConfirmation;
        }
        long lastAnswer = LeaseTimes.latest(own.earlierAnswer(), granting.activationEarlierAnswer());
        if (lastAnswer == NEVER) {
            return byConfirmation;
        }
        long byAnswers = LeaseTimes.latest(lastAnswer + leaseNanos, granting.earlierTermsGrantEnd());
        return later(byConfirmation, byAnswers) ? byAnswers : byConfirmation;
    }

    @Override
    public long mergeFence(long now) {
        return now + leaseNanos + marginNanos;
    }

    @Override
    public boolean leased(Member m, long now) {
        if (m.equals(node.self())) {
            return serving();
        }
        return granting.leased(m, now);
    }

    @Override
    public void tick(long now, List<Member> view, boolean coordinating, @Nullable Member coordinator) {
        if (coordinating) {
            if (granting.pingDue(now)) {
                granting.ping(view, now);
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
            String holder = storeLease.foreignHolder();
            if (coordinating && holder != null) {
                // not for want of members: say what held it back
                lost = "as coordinator it may not run while " + holder + ", a member of no view it has seen, holds the"
                        + " store's coordinator lease";
            }
            lose(lost, coordinating);
        }
    }

    @Override
    public void clockJumped(boolean coordinating) {
        own.expire();
        if (coordinating) {
            granting.forgetConfirmations();
        }
    }

    /** This coordinator may run until a later time: so may its own node. */
    void grantSelf(long until, long now) {
        own.extend(until, now, viewWins);
    }

    @Override
    public void onPing(Member from, LeasePing ping) {
        own.onPing(from, ping);
    }

    @Override
    public void onPong(Member from, LeasePong pong, List<Member> view) {
        granting.onPong(from, pong, view);
    }

    @Override
    public void onGrant(LeaseGrant grant) {
        own.onGrant(grant, viewWins);
    }

    @Override
    public void onRefused(LeaseRefused refused, boolean coordinating) {
        if (own.onRefused(refused)) {
            // this node was removed from the cluster (it froze or was cut off) and its shards were taken over
            lose(refused.reason(), coordinating);
        }
    }
}
