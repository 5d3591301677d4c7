package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.NEVER;
import static dev.sharding.internal.lease.LeaseTimes.ahead;
import static dev.sharding.internal.lease.LeaseTimes.elapsed;
import static dev.sharding.internal.lease.LeaseTimes.later;
import static dev.sharding.internal.lease.LeaseTimes.latest;

import dev.sharding.Member;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's side of the leases: it pings every member of its view each quarter of the lease duration, keeps
 * when each member last confirmed it, and grants each member that answers a lease that never ends after the
 * coordinator's own right to run ({@link #runUntil}).
 *
 * <ul>
 * <li>The coordinator may run as long as its {@link CoordinatorRight} says: until the last ping a winning set of members
 * answered, plus the lease duration; with {@code store-lease}, until its lease in the store ends.</li>
 * <li>A member that left keeps its shards fenced until the last lease granted to it has ended ({@link #fenceFor}),
 * and they are taken over only once a winning set confirmed the coordinator with pings sent after it left
 * ({@link #confirmedSince}).</li>
 * <li>A member that is not in the view is refused, and told why, so that it stops serving.</li>
 * <li>A member that had confirmed this coordinator and then answered another (a half-broken network: its view lost
 * this coordinator and found it again while this coordinator's view kept it) may have let that coordinator grant
 * leases this one knows nothing of: shards nobody reports wait until they have surely ended ({@link #strayFence}).</li>
 * </ul>
 *
 * <p>Control thread only. Reset whenever this node becomes the coordinator.
 */
final class CoordinatorLeases {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorLeases.class);

    private final LeaseHost node;

    /** Who acts on what the grants decide: the coordinator, which may allocate once a member got its first lease. */
    private final LeaseListener events;

    private final SplitBrainLeases leases;

    private final CoordinatorRight right;

    private final StoreLease storeLease;

    private final long renewNanos;

    private final long leaseNanos;

    private final long marginNanos;

    private long round;

    private long lastPingNanos = NEVER;

    private final LinkedHashMap<Long, Long> pingSent = new LinkedHashMap<>();

    /** When this node last became the coordinator, or {@code NEVER}. */
    private long becameCoordinatorAt = NEVER;

    /** See {@link #activationConfirmedAt}. */
    private long activationConfirmedAt = NEVER;

    /** When each member was last pinged by a ping it answered. */
    private final Map<Member, Long> confirmed = new HashMap<>();

    /** When each member last answered an earlier coordinator, on this node's clock, as its pongs said. */
    private final Map<Member, Long> answeredEarlier = new HashMap<>();

    /** See {@link #activationEarlierAnswer}. */
    private long activationEarlierAnswer = NEVER;

    /** The end of the latest lease this node granted, in any of its terms as coordinator. */
    private long lastGrantEnd = NEVER;

    /** See {@link #earlierTermsGrantEnd}. */
    private long earlierTermsGrantEnd = NEVER;

    /** The last request of each member refused only because no winning set had confirmed this coordinator yet. */
    private final Map<Member, Long> unconfirmedRequests = new HashMap<>();

    /** Until when each member's last grant lasts. */
    private final Map<Member, Long> grantedUntil = new HashMap<>();

    /** See {@link #strayFence}. */
    private long strayFence = NEVER;

    CoordinatorLeases(
            LeaseHost node,
            LeaseListener events,
            SplitBrainLeases leases,
            CoordinatorRight right,
            StoreLease storeLease,
            long leaseNanos,
            long marginNanos) {
        this.node = node;
        this.events = events;
        this.leases = leases;
        this.right = right;
        this.storeLease = storeLease;
        this.renewNanos = LeaseTimes.renewNanos(leaseNanos);
        this.leaseNanos = leaseNanos;
        this.marginNanos = marginNanos;
    }

    /**
     * This node became the coordinator at {@code now}: nobody has confirmed it or holds its grant yet. The pings of
     * the view that made it the coordinator are stamped {@code now} and count as sent in its term: a member answers
     * only the coordinator of its own view, so any answer to them follows this coordinator.
     */
    void reset(long now) {
        confirmed.clear();
        grantedUntil.clear();
        pingSent.clear();
        answeredEarlier.clear();
        unconfirmedRequests.clear();
        becameCoordinatorAt = now - 1;
        activationConfirmedAt = NEVER;
        activationEarlierAnswer = NEVER;
        earlierTermsGrantEnd = lastGrantEnd;
    }

    /**
     * When this coordinator first heard a winning set of members confirm it with pings sent after it became the
     * coordinator (the time the last answer needed arrived, not when its ping was sent: a member may have answered
     * the predecessor until just before it answered this one), or {@code NEVER} until then.
     */
    long activationConfirmedAt(long now) {
        if (activationConfirmedAt == NEVER
                && becameCoordinatorAt != NEVER
                && confirmedSince(becameCoordinatorAt, now)) {
            activationConfirmedAt = now;
            confirmed.forEach((m, sent) -> {
                Long answered = answeredEarlier.get(m);
                if (sent - becameCoordinatorAt > 0 && answered != null) {
                    activationEarlierAnswer = latest(answered, activationEarlierAnswer);
                }
            });
        }
        return activationConfirmedAt;
    }

    /**
     * The latest time a member of the winning set that first confirmed this coordinator ({@link
     * #activationConfirmedAt}) had answered an earlier coordinator, as their pongs said, or {@code NEVER} if none of
     * them ever did (or no winning set confirmed it yet). Every set that confirmed a predecessor shares a member with
     * that winning set, and a member that answers this coordinator answers no earlier one, so no predecessor was
     * confirmed after this time: none of their grants lasts beyond it plus one lease.
     */
    long activationEarlierAnswer() {
        return activationEarlierAnswer;
    }

    /**
     * The end of the latest lease this node granted before its current term as coordinator, or {@code NEVER}: its
     * members cannot report answers to an earlier term of the same coordinator as answers to another one.
     */
    long earlierTermsGrantEnd() {
        return earlierTermsGrantEnd;
    }

    /**
     * The monotonic clock stood still for a while (a suspended host): the members' confirmations, and the pings not
     * answered yet, are older than their times say. Forgets them; what was granted stays, as fences.
     */
    void forgetConfirmations() {
        confirmed.clear();
        pingSent.clear();
    }

    /** A new view: members that left confirm nothing any more. */
    void retain(List<Member> members) {
        confirmed.keySet().retainAll(members);
    }

    /** Whether a quarter of the lease passed since the last ping. */
    boolean pingDue(long now) {
        return elapsed(lastPingNanos, now, renewNanos);
    }

    /** Pings every other member of the view. */
    void ping(List<Member> view, long now) {
        lastPingNanos = now;
        long r = ++round;
        pingSent.put(r, now);
        LeaseTimes.trim(pingSent);
        for (Member m : view) {
            if (!m.equals(node.self())) {
                node.send(m, new LeasePing(r), false);
            }
        }
    }

    /** A member registered: ping it at once, so that it holds a lease before the next round. */
    void pingNow(Member member, List<Member> view) {
        if (pingSent.get(round) == null) {
            ping(view, System.nanoTime());
            return;
        }
        node.send(member, new LeasePing(round), false);
    }

    /** A member answers a ping, asking for its lease: grant it or say why not. */
    void onPong(Member from, LeasePong pong, List<Member> view) {
        long now = System.nanoTime();
        if (!view.contains(from)) {
            node.send(
                    from,
                    new LeaseRefused(
                            pong.request(),
                            LeaseRefused.NOT_A_MEMBER + ": " + from + " is not in the view " + view + " of coordinator "
                                    + node.nodeName()),
                    false);
            return;
        }
        if (pong.earlierAnswerAgoNanos() != LeasePong.NONE) {
            long answered = now - pong.earlierAnswerAgoNanos();
            answeredEarlier.merge(from, answered, LeaseTimes::latest);
            strayedIfAfter(from, answered, now);
        }
        Long sent = pingSent.get(pong.round());
        if (sent != null) {
            confirmed.merge(from, sent, Math::max);
            activationConfirmedAt(now);
        }
        long until = runUntil(now);
        String refusal = refusal(until, now);
        if (refusal != null) {
            if (leases.viewWins() && storeLease.foreignHolder() == null) {
                // refused only for want of a winning set: granted the moment one confirms this coordinator
                unconfirmedRequests.put(from, pong.request());
            }
            node.send(from, new LeaseRefused(pong.request(), refusal), false);
            return;
        }
        unconfirmedRequests.remove(from);
        grant(from, pong.request(), until, now);
        if (!unconfirmedRequests.isEmpty()) {
            // a winning set has just confirmed this coordinator: the members that answered before it did need not
            // wait a round for their leases (a new coordinator's first round, while their old leases run out)
            unconfirmedRequests.forEach((m, request) -> {
                if (view.contains(m)) {
                    grant(m, request, until, now);
                }
            });
            unconfirmedRequests.clear();
        }
    }

    /**
     * Whether a member answered another coordinator after it had confirmed this one in this term: after the ping it
     * last confirmed was sent. The answer's time as this node's clock places it is never earlier than it was (the
     * pong's time on the way counts as if the answer came later), so no such member is missed; a member that reports
     * an answer to a predecessor it gave just before it first confirmed this coordinator may be taken for one, and then
     * fences shards for about as long as the activation fence does anyway. A member that has not confirmed this
     * coordinator yet is not asked: a winning set that confirmed it shares a member with every winning set that could
     * have confirmed another since ({@link #activationEarlierAnswer}).
     */
    private void strayedIfAfter(Member from, long answered, long now) {
        Long confirmedSent = confirmed.get(from);
        if (confirmedSent == null || !later(answered, confirmedSent)) {
            return;
        }
        long fence = answered + leaseNanos + marginNanos;
        if (later(fence, strayFence)) {
            boolean fresh = !ahead(strayFence, now);
            strayFence = fence;
            if (!fresh) {
                log.debug(
                        "Member {} answered another coordinator too; shards nobody reports wait {} ms",
                        from,
                        Math.max(0, (fence - now) / 1_000_000));
                return;
            }
            log.info(
                    "Member {} answered another coordinator {} ms ago, after coordinator {} sent the ping it confirmed"
                            + " (its view lost this coordinator and found it again): leases granted there may cover"
                            + " shards nobody reports here, which wait {} ms",
                    from,
                    Math.max(0, (now - answered) / 1_000_000),
                    node.nodeName(),
                    Math.max(0, (fence - now) / 1_000_000));
        }
    }

    /**
     * Until when a lease granted by another coordinator that a member of this coordinator's view answered after it
     * had confirmed this one may last, or {@code NEVER}. Such a member's view lost this coordinator and found it again
     * (a link that broke and healed, views installed in different orders), while this coordinator's view kept it: its
     * coordinator meanwhile may have granted leases this one never heard of, to members this one took for gone, whose
     * shards it would otherwise place anew while they are still served there. The bound is the member's own last
     * answer there plus a lease: every winning set that confirmed that coordinator shares a member with the winning
     * set that confirms this one, and each of those says when it last answered there.
     */
    long strayFence() {
        return strayFence;
    }

    /** Grants a member's request a lease until {@code until}, measured by the member from when it sent the request. */
    private void grant(Member to, long request, long until, long now) {
        boolean first = !leased(to, now);
        grantedUntil.merge(to, until, Math::max);
        lastGrantEnd = latest(until, lastGrantEnd);
        node.send(to, new LeaseGrant(request, until - now), false);
        if (later(until, leases.servingUntil())) {
            leases.grantSelf(until, now);
        }
        if (first) {
            events.coordinatorMayRun();
        }
    }

    private @Nullable String refusal(long until, long now) {
        String coordinator = "coordinator " + node.nodeName();
        if (!leases.viewWins()) {
            return coordinator + " is on the losing side of a partition";
        }
        if (storeLease.foreignHolder() != null) {
            return coordinator + " may not run: another cluster (" + storeLease.foreignHolder()
                    + ") holds the store's coordinator lease";
        }
        if (!ahead(until, now)) {
            return right.lacking(coordinator);
        }
        return null;
    }

    /** See {@link LeaseKeeper#fenceFor}. */
    long fenceFor(Member gone, long now) {
        long granted = grantedUntil.getOrDefault(gone, NEVER);
        return Math.max(now, granted) + marginNanos;
    }

    /** See {@link LeaseKeeper#confirmedSince}. */
    boolean confirmedSince(long since, long now) {
        return right.confirmedSince(confirmed, since, now, leases.viewWins());
    }

    /** Whether a member other than this node holds a lease from this coordinator now. */
    boolean leased(Member m, long now) {
        Long until = grantedUntil.get(m);
        return until != null && ahead(until, now);
    }

    /** Until when this coordinator may run: see the class comment. */
    long runUntil(long now) {
        return right.runUntil(confirmed, now);
    }
}
