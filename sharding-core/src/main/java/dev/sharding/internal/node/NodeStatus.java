package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What a node can tell about itself and its cluster, for {@code ShardingNode}'s queries and the actuator: its
 * membership, registration, lease and coordinator, its regions and waiting asks, and the operators' requests to the
 * coordinator. Reads protocol state on the control thread where it lives there.
 */
public final class NodeStatus {

    private final ShardingSettings settings;

    private final NodeLinks links;

    private final Membership membership;

    private final BooleanSupplier running;

    private final GracefulLeave leave;

    private final LeaseKeeper leases;

    private final ServingGate gate;

    private final ControlLoop control;

    private final CoordinatorDriver coordinator;

    private final LocalRegions regions;

    private final AskRegistry asks;

    NodeStatus(
            ShardingSettings settings,
            NodeLinks links,
            Membership membership,
            BooleanSupplier running,
            GracefulLeave leave,
            LeaseKeeper leases,
            ServingGate gate,
            ControlLoop control,
            CoordinatorDriver coordinator,
            LocalRegions regions,
            AskRegistry asks) {
        this.settings = settings;
        this.links = links;
        this.membership = membership;
        this.running = running;
        this.leave = leave;
        this.leases = leases;
        this.gate = gate;
        this.control = control;
        this.coordinator = coordinator;
        this.regions = regions;
        this.asks = asks;
    }

    /**
     * This member.
     *
     * @return the member
     * @throws IllegalStateException before start
     */
    public Member self() {
        return links.self();
    }

    /**
     * This node's name.
     *
     * @return the name, empty before start
     */
    public String nodeName() {
        return membership.nodeName();
    }

    /**
     * Whether the node takes messages.
     *
     * @return true between start and stop
     */
    public boolean isRunning() {
        return running.getAsBoolean();
    }

    /**
     * Whether the node is handing off its shards to leave.
     *
     * @return true from the start of a graceful stop
     */
    public boolean isLeaving() {
        return leave.isLeaving();
    }

    /**
     * Whether this node registered its regions with the current coordinator and has been granted a lease to serve.
     *
     * @return true once the coordinator acknowledged and granted
     */
    public boolean isRegistered() {
        return membership.registered()
                && running.getAsBoolean()
                && membership.registrationRefused() == null
                && leases.hadLease();
    }

    /**
     * Whether this node holds a lease to serve its shards now.
     *
     * @return true while it may deliver to its entities
     */
    public boolean isServing() {
        return running.getAsBoolean() && gate.serving();
    }

    /**
     * Whether the current view has lasted long enough ({@code split-brain.stable-after}) to be the only reference of
     * a split-brain decision: until then, a member lost now counts against the views before it too.
     *
     * @return true once the membership is stable
     */
    public boolean isViewStable() {
        return control.read(() -> leases.viewStable(System.nanoTime()), false);
    }

    /**
     * Why this node refuses messages now: it is on the losing side of a partition, lost its lease, or the coordinator
     * refused it for good.
     *
     * @return the reason, or {@code null} when it serves
     */
    public @Nullable String partitionedReason() {
        return membership.notServingReason(leases.partitioned());
    }

    /**
     * Why the coordinator refused this node for good (another store, another number of shards), or {@code null}.
     *
     * @return the reason
     */
    public @Nullable String registrationRefused() {
        return membership.registrationRefused();
    }

    /**
     * Whether this node hosts the active coordinator.
     *
     * @return true on the coordinator
     */
    public boolean isCoordinator() {
        return coordinator.isActive();
    }

    /**
     * Whether this node's coordinator is active and has rebuilt its table.
     *
     * @return true on the coordinator once ready
     */
    public boolean isCoordinatorReady() {
        return coordinator.isReady();
    }

    /**
     * Why no shard is placed yet: the cluster waits for {@code min-nr-of-members} members. On the coordinator's node
     * its own count; elsewhere, the view is smaller than the setting and no shard home is known here.
     *
     * @return the reason, or {@code null} when shards are placed (or may be)
     */
    public @Nullable String placementWait() {
        int min = settings.member().minNrOfMembers();
        if (min <= 1) {
            return null;
        }
        if (coordinator.isActive()) {
            String wait = control.read(
                    () -> {
                        String w = coordinator.placementWait();
                        return w == null ? "" : w;
                    },
                    "");
            return wait.isEmpty() ? null : wait;
        }
        int members = membership.view().size();
        if (members >= min || regions.anyShardHomeKnown()) {
            return null;
        }
        return "waiting for " + min + " members (sharding.min-nr-of-members) before placing shards; " + members
                + " in the view";
    }

    /**
     * The members of the current view, oldest first.
     *
     * @return the members
     */
    public List<Member> members() {
        return membership.view();
    }

    /**
     * The member whose coordinator is active.
     *
     * @return the coordinator, or {@code null} before the first view
     */
    public @Nullable Member coordinator() {
        return membership.coordinator();
    }

    /**
     * The names of the entity types this node runs, in the order they were given.
     *
     * @return a copy
     */
    public Set<String> typeNames() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(regions.byType().keySet()));
    }

    /**
     * The regions, by type name.
     *
     * @return the regions, unmodifiable
     */
    public Map<String, Region<?>> regions() {
        return regions.byType();
    }

    /**
     * Asks waiting for a remote reply.
     *
     * @return the count
     */
    public int waitingAsks() {
        return asks.waiting();
    }

    /**
     * The region of an entity class.
     *
     * @param entityClass the class
     * @param <T> the class
     * @return its region
     * @throws IllegalArgumentException if this node does not run the class
     */
    @SuppressWarnings("unchecked")
    public <T> Region<T> region(Class<T> entityClass) {
        for (Region<?> r : regions.all()) {
            if (r.entityClass() == entityClass) {
                return (Region<T>) r;
            }
        }
        throw new IllegalArgumentException("No entity type for " + entityClass.getName() + " on this node");
    }

    /**
     * The region of an entity type.
     *
     * @param typeName the type name
     * @return its region
     * @throws IllegalArgumentException if this node does not run the type
     */
    public Region<?> region(String typeName) {
        Region<?> r = regions.get(typeName);
        if (r == null) {
            throw new IllegalArgumentException("Unknown entity type " + typeName);
        }
        return r;
    }
}
