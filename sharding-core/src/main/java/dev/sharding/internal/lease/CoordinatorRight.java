package dev.sharding.internal.lease;

import static dev.sharding.internal.lease.LeaseTimes.NEVER;
import static dev.sharding.internal.lease.LeaseTimes.ahead;

import dev.sharding.Member;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What lets an active coordinator run, as its split-brain strategy says; chosen once, with the strategy. With the
 * strategy off there are no leases at all ({@link NoLeases}), so no right either.
 *
 * <ul>
 * <li>{@link ConfirmedByMembers} (keep-majority, static-quorum, keep-oldest): a winning set of members answering its
 * pings. The store's lease only guards against a second cluster on the same store, and a coordinator that may not run
 * does not hold on to it.</li>
 * <li>{@link HeldInStore} (store-lease): its lease in the store, which is the right itself.</li>
 * </ul>
 *
 * <p>Control thread only.
 */
sealed interface CoordinatorRight {

    /**
     * Until when the coordinator may run.
     *
     * @param confirmed when each member last confirmed the coordinator (the sending time of the ping it answered)
     * @param now the time
     * @return the end of its right, {@link LeaseTimes#NEVER} or a time past when it has none
     */
    long runUntil(Map<Member, Long> confirmed, long now);

    /**
     * Whether the coordinator was confirmed by requests sent after a time (see {@link LeaseKeeper#confirmedSince}).
     *
     * @param confirmed when each member last confirmed the coordinator
     * @param since the time
     * @param now the time now
     * @param viewWins whether this node's side won the last decision
     * @return true once confirmed
     */
    boolean confirmedSince(Map<Member, Long> confirmed, long since, long now, boolean viewWins);

    /** Why a coordinator whose right has ended refuses a lease, after {@code coordinator}'s name. */
    String lacking(String coordinator);

    /**
     * Whether the coordinator renews the store's lease now.
     *
     * @param coordinatorRuns whether its side won and its right still lasts
     */
    boolean mayHoldStoreLease(boolean coordinatorRuns);

    /**
     * This node's side lost, or its own lease did: what becomes of the store's lease.
     *
     * @param coordinating whether this node is the active coordinator
     */
    void sideLost(boolean coordinating);

    /**
     * The store's lease came back after a lapse (or came for the first time).
     *
     * @param until when it ends
     * @param now the time
     * @param leases the node's leases, whose own lease it may extend
     */
    void storeLeaseRegained(long until, long now, SplitBrainLeases leases);

    /** Keep-majority, static-quorum, keep-oldest: the members' answers to the coordinator's pings. */
    final class ConfirmedByMembers implements CoordinatorRight {

        private final LeaseHost node;

        private final PartitionDecider decider;

        private final StoreLease storeLease;

        private final long leaseNanos;

        ConfirmedByMembers(LeaseHost node, PartitionDecider decider, StoreLease storeLease, long leaseNanos) {
            this.node = node;
            this.decider = decider;
            this.storeLease = storeLease;
            this.leaseNanos = leaseNanos;
        }

        /** The last time a winning set of members confirmed it (the coordinator confirms itself now), plus a lease. */
        @Override
        public long runUntil(Map<Member, Long> confirmed, long now) {
            confirmed.put(node.self(), now);
            return decider.runUntil(confirmed, now, leaseNanos);
        }

        /** Whether the members that answered pings sent after {@code since} win, with this coordinator. */
        @Override
        public boolean confirmedSince(Map<Member, Long> confirmed, long since, long now, boolean viewWins) {
            Set<Member> fresh = new HashSet<>();
            fresh.add(node.self());
            confirmed.forEach((m, sent) -> {
                if (sent - since > 0) {
                    fresh.add(m);
                }
            });
            return viewWins && decider.wins(fresh, decider.references(now));
        }

        @Override
        public String lacking(String coordinator) {
            return coordinator + " has not heard from a winning set of members";
        }

        /** The store's lease is only a guard here: a coordinator that may not run does not hold on to it. */
        @Override
        public boolean mayHoldStoreLease(boolean coordinatorRuns) {
            return coordinatorRuns;
        }

        /** The store's lease is given up, so that the winning side's coordinator need not wait for it. */
        @Override
        public void sideLost(boolean coordinating) {
            storeLease.release(coordinating);
            storeLease.lapse();
        }

        /** Nothing more: the members' answers extend the coordinator's own node ({@link SplitBrainLeases#tick}). */
        @Override
        public void storeLeaseRegained(long until, long now, SplitBrainLeases leases) {}
    }

    /** Store-lease: the coordinator's lease in the store. */
    final class HeldInStore implements CoordinatorRight {

        private final StoreLease storeLease;

        HeldInStore(StoreLease storeLease) {
            this.storeLease = storeLease;
        }

        /** The end of its lease in the store. */
        @Override
        public long runUntil(Map<Member, Long> confirmed, long now) {
            return storeLease.until();
        }

        /** Whether it renewed the store's lease with a request sent after {@code since}, and the lease still runs. */
        @Override
        public boolean confirmedSince(Map<Member, Long> confirmed, long since, long now, boolean viewWins) {
            return storeLease.sentAt() != NEVER && storeLease.sentAt() - since > 0 && ahead(storeLease.until(), now);
        }

        @Override
        public String lacking(String coordinator) {
            return coordinator + " does not hold the store's coordinator lease";
        }

        /** The store's lease is what lets it run: it always tries to hold it. */
        @Override
        public boolean mayHoldStoreLease(boolean coordinatorRuns) {
            return true;
        }

        /** Nothing: the store's lease is the right to run itself, and lasts as the store says. */
        @Override
        public void sideLost(boolean coordinating) {}

        /** The store's lease lets the coordinator's own node serve as long as it lasts. */
        @Override
        public void storeLeaseRegained(long until, long now, SplitBrainLeases leases) {
            leases.grantSelf(until, now);
        }
    }
}
