package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.NEVER;
import static dev.sharding.internal.lease.LeaseTimes.ahead;
import static dev.sharding.internal.lease.LeaseTimes.elapsed;
import static dev.sharding.internal.lease.LeaseTimes.later;

import dev.sharding.Member;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's own lease: whether it may deliver to its entities now.
 *
 * <ul>
 * <li>It answers its coordinator's pings with a request for a lease, and a grant says how long the lease lasts from
 * when the request was sent ({@link #onGrant}); the coordinator's own node extends its lease directly
 * ({@link #extend}).</li>
 * <li>When the lease lapses while the node's side still wins, its entities <em>pause</em>: their messages wait. When
 * a lease comes back, the shards are checked against the store before they serve again ({@link LeaseHost#resumeServing()}).</li>
 * <li>A node that stays without a lease for stable-after plus one lease duration, or is told it is no longer a member,
 * <em>loses</em>: every shard stops at once ({@link #lose}). A node that lost serves again only with a new lease on a
 * winning side, afresh.</li>
 * </ul>
 *
 * <p>Written on the control thread; {@link #serving()} and {@link #partitioned()} are read by any thread.
 */
final class MemberLease {

    private static final Logger log = LoggerFactory.getLogger(MemberLease.class);

    private final LeaseHost node;

    /** Who acts on what this lease decides: the serving gate. */
    private final LeaseListener events;

    private final long leaseNanos;

    private long requestSeq;

    /** When each recent lease request was sent, by its sequence number. */
    private final LinkedHashMap<Long, Long> requestSent = new LinkedHashMap<>();

    private volatile long servingUntil;

    private volatile boolean hadLease;

    /** Since when the lease has lapsed without the shards being dropped, or {@code NEVER}. */
    private long pausedSince = NEVER;

    private @Nullable String lastRefusal;

    /** When this node last answered a coordinator's ping. */
    private long lastAnswer = NEVER;

    /** When this node last answered a coordinator before its current one (see {@link LeasePong}), or {@code NEVER}. */
    private long earlierAnswer = NEVER;

    /** Why this node may not serve now, or {@code null}. */
    private volatile @Nullable String partitioned;

    /**
     * Creates the lease.
     *
     * @param node the node
     * @param leaseNanos the lease duration
     */
    MemberLease(LeaseHost node, LeaseListener events, long leaseNanos) {
        this.node = node;
        this.events = events;
        this.leaseNanos = leaseNanos;
        this.servingUntil = NEVER;
    }

    /** Whether this node may deliver to its entities now. Any thread. */
    boolean serving() {
        return ahead(servingUntil, System.nanoTime());
    }

    /** Until when this node may serve. */
    long servingUntil() {
        return servingUntil;
    }

    /** Whether this node was ever granted a lease. */
    boolean hadLease() {
        return hadLease;
    }

    /** Why this node may not serve, or {@code null} when it may (or has not had a lease yet). Any thread. */
    @Nullable
    String partitioned() {
        return partitioned;
    }

    /**
     * The lease is taken as run out now (the monotonic clock stood still while the host was suspended): the node
     * stops delivering, and the next lease checks its shards ({@link #regained}). Requests sent before are forgotten:
     * their times are older than they say.
     */
    void expire() {
        requestSent.clear();
        servingUntil = NEVER;
    }

    /**
     * The coordinator changed: answers to requests sent to the previous one are not taken, and every answer this node
     * gave a previous coordinator was given by now.
     */
    void coordinatorChanged() {
        requestSent.clear();
        earlierAnswer = lastAnswer;
    }

    /**
     * This node stopped being the coordinator at {@code now}: it confirmed itself, as a member of each winning set of
     * its own term, until then. A coordinator that follows it counts that as its last answer to another coordinator,
     * or the bound on its leases would rest on an answer older than its own term, should it be in that coordinator's
     * winning set (after a merge, for example).
     */
    void stoppedCoordinating(long now) {
        lastAnswer = LeaseTimes.latest(now, lastAnswer);
    }

    /**
     * When this node last answered a coordinator before its current one, or {@code NEVER}: when it becomes the
     * coordinator itself, its own part of the bound on its predecessors' leases.
     */
    long earlierAnswer() {
        return earlierAnswer;
    }

    /** The coordinator pings: ask for a lease, and say when this node last answered another coordinator. */
    void onPing(Member from, LeasePing ping) {
        long now = System.nanoTime();
        long seq = ++requestSeq;
        requestSent.put(seq, now);
        LeaseTimes.trim(requestSent);
        long ago = earlierAnswer == NEVER ? LeasePong.NONE : Math.max(0, now - earlierAnswer);
        lastAnswer = now;
        node.send(from, new LeasePong(ping.round(), seq, ago), false);
    }

    /**
     * The coordinator grants a lease, lasting from when the request was sent.
     *
     * @param grant the grant
     * @param viewWins whether this node's side won the last decision
     */
    void onGrant(LeaseGrant grant, boolean viewWins) {
        Long sent = requestSent.get(grant.request());
        if (sent == null) {
            return;
        }
        for (Iterator<Long> it = requestSent.keySet().iterator(); it.hasNext(); ) {
            if (it.next() <= grant.request()) {
                it.remove();
            }
        }
        long now = System.nanoTime();
        boolean lapsed = lapsed(now);
        long until = sent + Math.min(grant.validForNanos(), leaseNanos);
        boolean extending = later(until, servingUntil);
        boolean serves = ahead(extending ? until : servingUntil, now);
        if (viewWins && serves && resumes(true, lapsed)) {
            events.holdDelivery();
        }
        if (extending) {
            servingUntil = until;
        }
        lastRefusal = null;
        if (viewWins && serves) {
            regained(true, lapsed);
        }
    }

    /**
     * Whether a lease that comes now makes {@link #regained} check the shards: then delivery must be held before
     * the lease is published, or an entity thread could serve a shard re-placed elsewhere during the lapse in the
     * instant before the check begins.
     */
    private boolean resumes(boolean viewWins, boolean lapsed) {
        return (partitioned != null && viewWins) || pausedSince != NEVER || lapsed;
    }

    /**
     * Whether the lease held before has run out, whether or not a tick has noticed it yet: an entity that found the
     * node not serving meanwhile waits (is parked) until the shards are checked and the node serves again.
     */
    private boolean lapsed(long now) {
        return hadLease && !ahead(servingUntil, now);
    }

    /**
     * The coordinator refuses a lease; the current one, if any, runs out.
     *
     * @return whether the refusal says this node is no longer a member, after it held a lease: it must lose
     */
    boolean onRefused(LeaseRefused refused) {
        lastRefusal = refused.reason();
        return refused.notMember() && hadLease;
    }

    /** This node's coordinator may run until {@code until}: so may this node. */
    void extend(long until, long now, boolean viewWins) {
        if (ahead(until, now)) {
            boolean lapsed = lapsed(now);
            if (resumes(viewWins, lapsed)) {
                events.holdDelivery();
            }
            servingUntil = until;
            regained(viewWins, lapsed);
        }
    }

    /**
     * Checks for a lapse, every tick: a lapsed lease pauses the entities, and one lapsed for {@code pauseNanos}
     * returns why the node must lose.
     *
     * @return the reason to lose, or {@code null}
     */
    @Nullable
    String checkLapse(
            long now, long pauseNanos, Duration leaseDuration, boolean coordinating, @Nullable Member coordinator) {
        long until = servingUntil;
        if (!hadLease || ahead(until, now) || partitioned != null) {
            return null;
        }
        if (pausedSince == NEVER) {
            // entities wait (their messages are held) until a lease comes back, a coordinator change in a healthy
            // cluster takes about that long; the shards are checked against the store before they serve
            pausedSince = now;
            log.info("Node {} pauses its entities: its lease ran out (coordinator {})", node.nodeName(), coordinator);
            return null;
        }
        if (!elapsed(pausedSince, now, pauseNanos)) {
            return null;
        }
        Duration without = leaseDuration.plusNanos(pauseNanos);
        if (lastRefusal != null) {
            return lastRefusal;
        }
        return coordinating
                ? "as coordinator it has not heard from a winning set of members for over " + without
                : "it holds no lease from coordinator " + coordinator + " (none renewed for over " + without + ")";
    }

    /**
     * The node loses: it stops serving at once, and every shard stops.
     *
     * @param reason why
     */
    void lose(String reason) {
        servingUntil = NEVER;
        pausedSince = NEVER;
        if (partitioned == null) {
            partitioned = reason;
            log.warn("Node {} stops serving: {}", node.nodeName(), reason);
            events.stopServing(reason);
        } else {
            partitioned = reason;
        }
    }

    /**
     * A lease came, or was extended.
     *
     * @param viewWins whether this node's side won the last decision
     * @param lapsed whether the lease it held had run out before this one came, even if no tick noticed it: the
     *     entities that found the node not serving in that gap wait for {@link LeaseHost#resumeServing()}
     */
    private void regained(boolean viewWins, boolean lapsed) {
        hadLease = true;
        if (partitioned != null && viewWins) {
            log.info("Node {} holds a lease again and serves what it is allocated afresh", node.nodeName());
            partitioned = null;
            pausedSince = NEVER;
            events.resumeServing();
        } else if (pausedSince != NEVER) {
            log.info("Node {} holds a lease again; checking its shards against the store", node.nodeName());
            pausedSince = NEVER;
            events.resumeServing();
        } else if (lapsed) {
            // renewed late, before a tick paused the entities: those that came meanwhile wait all the same
            log.debug("Node {} holds a lease again after a short lapse; checking its shards", node.nodeName());
            events.resumeServing();
        }
    }
}
