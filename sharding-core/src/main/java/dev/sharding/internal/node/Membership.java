package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.RegisterRefused;
import dev.sharding.internal.protocol.Sender;
import dev.sharding.internal.region.LocalRegions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's place in the cluster: who it is, the current view, which member's coordinator is active (the oldest),
 * and whether this node's regions are registered with it.
 *
 * <p>Registration: when the coordinator changes, the node sends {@code Register} with what each region hosts; it is
 * repeated until {@code RegisterAck} comes back (soon at first, then every retry interval), and again whenever the
 * node drops shards on its own. A coordinator may refuse a node for good ({@code RegisterRefused}: another store, another number of
 * shards); the node then never serves.
 *
 * <p>Who may send what: a control message is taken only from a sender its {@link Sender} allows, judged against this
 * node's current view. Others are counted and dropped.
 *
 * <p>Written on the control thread only; the fields are volatile so that queries from other threads see them.
 */
final class Membership {

    private static final Logger log = LoggerFactory.getLogger(Membership.class);

    /** How a new view changes the current one: who left, who joined, and whether the coordinator moved. */
    record ViewChange(
            List<Member> members,
            Set<Member> gone,
            Set<Member> joined,
            @Nullable Member newCoordinator,
            boolean coordinatorChanged) {}

    private final LocalRegions regions;

    private final Outbound out;

    private final AtomicLong droppedControl = new AtomicLong();

    private volatile @Nullable Member self;

    private volatile String nodeName = "";

    private volatile List<Member> view = List.of();

    /** The members of {@link #view}, for {@link #isMember} on every message sent to another node. */
    private volatile Set<Member> viewSet = Set.of();

    private volatile @Nullable Member coordinator;

    private volatile boolean registered;

    /** The first pause before {@code Register} is repeated. */
    static final long FIRST_REGISTER_RETRY_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);

    /** When {@code Register} was last sent, and the pause before the next repeat; control thread only. */
    private long registerSentNanos;

    private long registerBackoffNanos = FIRST_REGISTER_RETRY_NANOS;

    /** Why the coordinator refused this node's registration for good, or {@code null}. */
    private volatile @Nullable String registrationRefused;

    /** The id of this node's store, empty when it is not shared between processes. */
    private volatile String storeId = "";

    Membership(LocalRegions regions, Outbound out) {
        this.regions = regions;
        this.out = out;
    }

    /** This node joined: its member. */
    void joined(Member me) {
        self = me;
        nodeName = me.name();
    }

    /** The id of the store, read before the first view so that the first {@code Register} carries it. */
    void storeId(String id) {
        storeId = id;
    }

    /** How a new view would change the current one; publishes nothing. Control thread. */
    ViewChange changeTo(List<Member> members) {
        Set<Member> gone = new HashSet<>(view);
        members.forEach(gone::remove);
        Set<Member> joined = new HashSet<>(members);
        view.forEach(joined::remove);
        Member newCoordinator = members.isEmpty() ? null : members.get(0);
        return new ViewChange(
                members, gone, joined, newCoordinator, newCoordinator != null && !newCoordinator.equals(coordinator));
    }

    /** Takes the new view of a change and publishes it to every thread. Control thread. */
    void publish(ViewChange change) {
        viewSet = Set.copyOf(change.members());
        view = change.members();
        coordinator = change.newCoordinator();
    }

    /** Registers this node's regions with the coordinator of the view. Control thread. */
    void register() {
        registered = false;
        registerBackoffNanos = FIRST_REGISTER_RETRY_NANOS;
        registerSentNanos = System.nanoTime();
        sendRegister();
    }

    /**
     * Repeats {@code Register} until acknowledged: first after {@link #FIRST_REGISTER_RETRY_NANOS}, then after twice
     * as long each time, up to the retry interval. A coordinator that has not installed the view with this node yet
     * drops its first {@code Register}; a node that joins waits for that repeat before it is UP, so the first repeats
     * come soon. Called every tick. Control thread.
     *
     * @param now {@link System#nanoTime()}
     * @param retryIntervalNanos the longest pause between two repeats
     */
    void retryRegister(long now, long retryIntervalNanos) {
        if (registered || now - registerSentNanos < registerBackoffNanos) {
            return;
        }
        registerSentNanos = now;
        registerBackoffNanos = Math.min(retryIntervalNanos, registerBackoffNanos * 2);
        sendRegister();
    }

    private void sendRegister() {
        Member coord = coordinator;
        if (coord != null) {
            out.send(coord, new Register(regions.infos(), storeId, regions.profile()), false);
        }
    }

    /** The coordinator took this node's registration. */
    void onRegisterAck(Member from, RegisterAck m) {
        if (!registered) {
            log.info("Node {} registered with coordinator {}", nodeName, from);
        }
        registered = true;
    }

    /** The coordinator refused this node for good. */
    void onRegisterRefused(Member from, RegisterRefused m) {
        if (registrationRefused == null) {
            log.error("Coordinator {} refused node {}: {}", from, nodeName, m.reason());
        }
        registrationRefused = m.reason();
    }

    /**
     * Whether a control message may come from this sender (see {@link Sender}): commands to regions only from the
     * coordinator of the current view, everything else only from members of the current view, a lease request from
     * anyone. A message that may not is counted and logged (the first, then at powers of two): a stale coordinator of
     * a former view, or a process that is not a member, changes nothing.
     */
    boolean accepts(Member from, ProtocolMessage msg) {
        if (from.equals(self)) {
            return true;
        }
        boolean accepted = switch (msg.sender()) {
            case COORDINATOR -> from.equals(coordinator);
            case MEMBER -> view.contains(from);
            case ANYONE, ANY_NODE -> true;
        };
        if (!accepted) {
            long n = droppedControl.incrementAndGet();
            if (coordinator == null || view.isEmpty()) {
                // a node that is joining hears the coordinator before its own first view: the message is sent again
                log.debug(
                        "Ignored {} from {}, which came before this node's first view; it is sent again",
                        msg.getClass().getSimpleName(),
                        from);
            } else if (n == 1 || Long.bitCount(n) == 1) {
                log.info(
                        "Dropped {} from {}: only {} may send it ({} a former coordinator's late message, or one from"
                                + " a process that is not a member; {} dropped so far)",
                        msg.getClass().getSimpleName(),
                        from,
                        msg.sender() == Sender.COORDINATOR
                                ? "the coordinator of the current view, " + coordinator + ","
                                : "members of the current view",
                        msg.sender() == Sender.COORDINATOR ? "likely" : "perhaps",
                        n);
            }
        }
        return accepted;
    }

    @Nullable
    Member self() {
        return self;
    }

    String nodeName() {
        return nodeName;
    }

    List<Member> view() {
        return view;
    }

    /** Whether a member is in the current view. Any thread. */
    boolean isMember(Member member) {
        return viewSet.contains(member);
    }

    @Nullable
    Member coordinator() {
        return coordinator;
    }

    boolean registered() {
        return registered;
    }

    @Nullable
    String registrationRefused() {
        return registrationRefused;
    }

    /**
     * Why this node does not serve: refused by the coordinator for good, or else the lease's reason.
     *
     * @param leaseReason why the lease says it does not serve, or {@code null}
     * @return the reason, or {@code null} when it serves
     */
    @Nullable
    String notServingReason(@Nullable String leaseReason) {
        String refused = registrationRefused;
        return refused != null ? "the coordinator refused this node: " + refused : leaseReason;
    }

    String storeId() {
        return storeId;
    }

    long droppedControl() {
        return droppedControl.get();
    }
}
