package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import dev.sharding.internal.transport.Transport;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new JGroups view, applied to each part of the node in order: the regions' homes on members that left, the
 * membership (who left, who joined, whether the coordinator changed), the lease keeper's split-brain decision, the
 * asks sent to members that left, the regions' handoffs, the statistics, the coordinator; and a new registration
 * when the coordinator changed.
 *
 * <p>Control thread only.
 */
final class ViewChanges {

    private static final Logger log = LoggerFactory.getLogger(ViewChanges.class);

    private final Membership membership;

    private final Transport transport;

    private final LeaseKeeper leases;

    private final AskRegistry asks;

    private final LocalRegions regions;

    private final ClusterStatistics statistics;

    private final CoordinatorDriver coordinator;

    /** Last: what came early from the view's coordinator is handled ({@link ControlDispatch#viewInstalled}). */
    private final Runnable afterView;

    ViewChanges(
            Membership membership,
            Transport transport,
            LeaseKeeper leases,
            AskRegistry asks,
            LocalRegions regions,
            ClusterStatistics statistics,
            CoordinatorDriver coordinator,
            Runnable afterView) {
        this.afterView = afterView;
        this.membership = membership;
        this.transport = transport;
        this.leases = leases;
        this.asks = asks;
        this.regions = regions;
        this.statistics = statistics;
        this.coordinator = coordinator;
    }

    /** For tests: called with each step's name before the step runs (and may throw, as a failing step would). */
    volatile @Nullable Consumer<String> beforeStep;

    /**
     * Applies a new view: homes, membership, leases, asks sent to members gone, handoffs, statistics, coordinator. Each
     * step runs even if one before it threw (that one is logged): a step that fails must not leave the asks sent to a
     * member gone waiting, or the coordinator with a member that left.
     */
    void apply(List<Member> members) {
        if (membership.self() == null) {
            step("join", members, () -> membership.joined(transport.self())); // the view can come while connecting
        }
        // Routing stops on the members gone before the view that drops them is published, and asks sent to them fail
        // after it: a caller that sees the new view routes no message to a member gone, and a sender that read a home
        // before the view looks at the view again after registering its ask (ShardRouter#sendTo), so every ask
        // registered for a member gone is either failed here or sent elsewhere.
        Membership.ViewChange change;
        try {
            change = membership.changeTo(members);
        } catch (RuntimeException e) {
            log.error("Applying view {} on {} failed", members, membership.nodeName(), e);
            return; // nothing to apply without the change
        }
        for (Region<?> r : regions.all()) {
            step("homes", members, () -> r.forgetHomesOn(change.gone()));
        }
        step("publish", members, () -> membership.publish(change));
        log.info(
                "View on {}: {} (left: {}, joined: {})",
                membership.nodeName(),
                members,
                change.gone(),
                change.joined());
        step("leases", members, () -> leases.onView(members, System.nanoTime()));
        step("asks", members, () -> asks.failSentTo(change.gone()));
        for (Region<?> r : regions.all()) {
            step("handoffs", members, r::membersGone);
        }
        step("statistics", members, () -> statistics.membersGone(change.gone()));
        step("coordinator", members, () -> coordinator.onView(members, change.gone(), change.joined()));
        if (change.coordinatorChanged()) {
            step("register", members, membership::register);
        }
        step("early", members, afterView);
    }

    private void step(String name, List<Member> members, Runnable step) {
        try {
            Consumer<String> hook = beforeStep;
            if (hook != null) {
                hook.accept(name);
            }
            step.run();
        } catch (RuntimeException e) {
            log.error(
                    "Applying view {} on {} failed in step {}; going on with the next",
                    members,
                    membership.nodeName(),
                    name,
                    e);
        }
    }
}
