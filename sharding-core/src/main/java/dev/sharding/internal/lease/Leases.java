package dev.sharding.internal.lease;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.protocol.LeaseGrant;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.LeaseRefused;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the split-brain strategy makes of views and leases, chosen once from the strategy ({@link #of}): the
 * {@link LeaseKeeper} keeps what every strategy shares (the view, who coordinates, the store's lease, the clocks) and
 * asks this for the rest.
 *
 * <ul>
 * <li>{@link NoLeases} (strategy off): every side wins, the node always serves, nothing is fenced.</li>
 * <li>{@link SplitBrainLeases} (every other strategy): views decided by the {@link PartitionDecider}, this node's own
 * lease, and the coordinator's grants, with the {@link CoordinatorRight} of the strategy.</li>
 * </ul>
 *
 * <p>Control thread, but for {@link #serving()} and {@link #partitioned()}, read by any thread.
 */
sealed interface Leases permits NoLeases, SplitBrainLeases {

    /**
     * The leases of a split-brain strategy.
     *
     * @param node the node
     * @param settings the strategy and its parameters
     * @param stableAfterNanos how long a view must last to be stable
     * @param storeLease the coordinator's lease in the store
     * @return the leases, for the node's life
     */
    static Leases of(
            LeaseHost node,
            LeaseListener events,
            SplitBrainSettings settings,
            long stableAfterNanos,
            StoreLease storeLease) {
        if (settings.strategy() == SplitBrainSettings.Strategy.OFF) {
            return new NoLeases(node);
        }
        PartitionDecider decider =
                new PartitionDecider(settings, stableAfterNanos, SplitBrainLeases.skew(stableAfterNanos));
        CoordinatorRight right = settings.strategy() == SplitBrainSettings.Strategy.STORE_LEASE
                ? new CoordinatorRight.HeldInStore(storeLease)
                : new CoordinatorRight.ConfirmedByMembers(
                        node, decider, storeLease, settings.leaseDuration().toNanos());
        return new SplitBrainLeases(node, events, settings, stableAfterNanos, decider, right, storeLease);
    }

    // ---- this node's lease ---------------------------------------------------------------------------------------

    /** Whether this node may deliver to its entities now. Any thread. */
    boolean serving();

    /** Why this node may not serve, or {@code null} when it may (or has not had a lease yet). Any thread. */
    @Nullable
    String partitioned();

    /** Until when this node may serve. */
    long servingUntil();

    /** Whether this node was ever granted a lease. */
    boolean hadLease();

    // ---- views ---------------------------------------------------------------------------------------------------

    /** Whether this node's side won the last decision. */
    boolean viewWins();

    /** Whether the current view has lasted long enough to be the reference of later decisions. */
    boolean viewStable(long now);

    /** Sets how long a view must last to be stable. */
    void stableAfter(long nanos);

    /** A member said goodbye: its leaving is no split. */
    void memberLeaving(Member member);

    /**
     * A new view, before it is decided.
     *
     * @param members the view
     * @param coordinatorChanged whether its coordinator is another than the last view's
     * @param becameCoordinator whether this node has just become the coordinator
     * @param stoppedCoordinating whether this node was the coordinator and is not any more
     * @param now the time the view is installed, which its pings carry
     */
    void newView(
            List<Member> members,
            boolean coordinatorChanged,
            boolean becameCoordinator,
            boolean stoppedCoordinating,
            long now);

    /**
     * Decides the new view: a node whose side loses stops serving.
     *
     * @param members the view
     * @param deciding its members that count in the decision
     * @param coordinating whether this node is the coordinator
     * @param now the time
     */
    void decide(List<Member> members, List<Member> deciding, boolean coordinating, long now);

    // ---- the coordinator's side ----------------------------------------------------------------------------------

    /** As the coordinator, pings every other member of the view. */
    void ping(List<Member> view, long now);

    /** As the coordinator, pings a member that has just registered. */
    void pingNow(Member member, List<Member> view);

    /** Whether this node's coordinator may run now: its side won, and its right lasts. */
    boolean coordinatorRuns(long now);

    /** Whether the coordinator renews the store's lease now (asked only when a renewal is due). */
    boolean mayHoldStoreLease(long now);

    /** The store's lease came back after a lapse (or came for the first time). */
    void storeLeaseRegained(long until, long now);

    /** See {@link LeaseKeeper#fenceFor}. */
    long fenceFor(Member gone, long now);

    /** See {@link LeaseKeeper#confirmedSince}. */
    boolean confirmedSince(long since, long now);

    /**
     * See {@link LeaseKeeper#activationFence}.
     *
     * @param everFollowed whether another member was ever this node's coordinator
     * @param now the time
     */
    long activationFence(boolean everFollowed, long now);

    /**
     * See {@link LeaseKeeper#confirmedActivationFence}.
     *
     * @param everFollowed whether another member was ever this node's coordinator
     * @param now the time
     */
    long confirmedActivationFence(boolean everFollowed, long now);

    /** See {@link LeaseKeeper#mergeFence}. */
    long mergeFence(long now);

    /** See {@link LeaseKeeper#leased}. */
    boolean leased(Member member, long now);

    // ---- periodic ------------------------------------------------------------------------------------------------

    /**
     * The periodic check, after the store's lease was renewed.
     *
     * @param now the time
     * @param view the current view
     * @param coordinating whether this node is the coordinator
     * @param coordinator the coordinator of the current view
     */
    void tick(long now, List<Member> view, boolean coordinating, @Nullable Member coordinator);

    /**
     * The wall clock ran ahead of the monotonic one (see {@link LeaseKeeper#tick(long, long)}): every lease time held
     * is taken as run out.
     *
     * @param coordinating whether this node is the coordinator
     */
    void clockJumped(boolean coordinating);

    // ---- messages (checked by the keeper to come from the right member first) ------------------------------------

    /** This node's coordinator pings. */
    void onPing(Member from, LeasePing ping);

    /** A member of this coordinator's view answers a ping. */
    void onPong(Member from, LeasePong pong, List<Member> view);

    /** This node's coordinator grants a lease. */
    void onGrant(LeaseGrant grant);

    /**
     * This node's coordinator refuses a lease.
     *
     * @param refused the refusal
     * @param coordinating whether this node is the coordinator
     */
    void onRefused(LeaseRefused refused, boolean coordinating);
}
