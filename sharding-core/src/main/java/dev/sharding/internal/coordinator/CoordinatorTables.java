package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.ProtocolMessage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's working tables, shared by its phases ({@link CoordinatorPhase}) and parts ({@link TableRebuild},
 * {@link ShardAllocator}, {@link HandOffOrchestrator}), and the effects of the event being decided. The shard table
 * itself is the {@link ShardTable}, changed only by its events; beside it are the decisions under way: allocations waiting for
 * their epoch or {@code ShardStarted}, handoffs, requests that wait, leaving members.
 *
 * <p>Control thread only.
 */
final class CoordinatorTables {

    private final Supplier<@Nullable Member> self;

    private final Supplier<String> nodeName;

    List<Member> view = List.of();

    /** The shard table, changed in place. */
    final ShardTable state = new ShardTable();

    /** When a shard that may still be served elsewhere may be taken over. */
    final ShardFences fences = new ShardFences();

    /** The epoch of each allocated shard, as allocated here or reported by its region. */
    final Map<ShardKey, Long> epochs = new HashMap<>();

    /** Allocations waiting for their epoch or for ShardStarted. */
    final AllocationsUnderWay inProgress = new AllocationsUnderWay();

    /** Shards being handed off, in the order they started. */
    final Map<ShardKey, HandOff> handoffs = new LinkedHashMap<>();

    /** Requests that wait: for readiness, a fence, a lease, or a hosting region of their type. */
    final Map<ShardKey, Set<Member>> waiting = new HashMap<>();

    final Set<Member> leaving = new HashSet<>();

    /** What each member in the view that reported regions said of itself: application version and roles. */
    final Map<Member, MemberProfile> profiles = new HashMap<>();

    /** How many members must have reported regions before the first shard is placed. */
    final int minNrOfMembers;

    /**
     * Whether shards may be placed: enough members reported, or a member reported a shard it hosts (the cluster
     * started placing before, under an earlier coordinator). Once set it stays, as members that leave later must not
     * stop allocation.
     */
    boolean placementStarted;

    /** Types whose regions remember their entities: their remembered shards are allocated without waiting. */
    final Set<String> rememberTypes = new HashSet<>();

    final RebalanceGate rebalance;

    /** The recent rebalances that moved shards. */
    final RebalanceHistory rebalances = new RebalanceHistory();

    /**
     * Members refused for good (another number of shards, another store), with why, each logged once: a refused node
     * registers again every retry interval. Only members of the view are kept, in the order they were refused; the
     * coordinator reports them to every node that gathers the cluster's state.
     */
    final Map<Member, String> refused = new LinkedHashMap<>();

    /**
     * Why every member is refused for good, or {@code null}: another cluster uses the store. Kept across activations:
     * it is a fact about the store, not about a member.
     */
    @org.jspecify.annotations.Nullable
    String storeRefusal;

    /** When a retry of the waiting requests is scheduled for, or {@code Long.MIN_VALUE}. */
    long retryAtNanos = Long.MIN_VALUE;

    /** The time of the event being decided. */
    long now;

    private long allocations;

    private final List<CoordinatorEffect> effects = new ArrayList<>();

    CoordinatorTables(
            Supplier<@Nullable Member> self,
            Supplier<String> nodeName,
            long rebalanceIntervalNanos,
            long rebalanceStableAfterNanos,
            int minNrOfMembers,
            long now) {
        this.self = self;
        this.nodeName = nodeName;
        this.minNrOfMembers = minNrOfMembers;
        this.rebalance = new RebalanceGate(rebalanceIntervalNanos, rebalanceStableAfterNanos, now);
        this.now = now;
    }

    /**
     * A member joined, left or registered its regions: the rebalance gate starts its stable window again, and the
     * coordinator is woken when the window ends, to rebalance if nothing changed meanwhile.
     */
    void membershipChanged() {
        rebalance.viewChanged(now);
        effect(new CoordinatorEffect.RetryAt(rebalance.stableAt()));
    }

    /** This node's member, null before it joined. */
    @Nullable
    Member self() {
        return self.get();
    }

    /** Whether this node's member is the oldest of a view, so its coordinator is the active one. */
    boolean coordinates(List<Member> members) {
        return !members.isEmpty() && members.get(0).equals(self());
    }

    /** This node's name, for logs and replies. */
    String nodeName() {
        return nodeName.get();
    }

    /** Starts deciding an event that happened at a time. */
    void begin(long now) {
        this.now = now;
        effects.clear();
    }

    /** The effects decided since {@link #begin}. */
    List<CoordinatorEffect> effects() {
        List<CoordinatorEffect> list = List.copyOf(effects);
        effects.clear();
        return list;
    }

    void send(Member to, ProtocolMessage message) {
        effects.add(new CoordinatorEffect.Send(to, message));
    }

    void effect(CoordinatorEffect effect) {
        effects.add(effect);
    }

    /** How long a handoff's target is remembered for an allocation that has to wait. */
    static final long PREFERRED_TARGET_NANOS = 10_000_000_000L;

    /** A handoff's target for an allocation that waits, and since when. */
    record PreferredTarget(Member member, long since) {}

    /** The targets of handoffs whose allocation waits, by shard. */
    final Map<ShardKey, PreferredTarget> preferredTargets = new HashMap<>();

    /** Remembers a handoff's target for an allocation that waits (from the first wait). */
    void preferTarget(ShardKey key, Member target, long now) {
        PreferredTarget before = preferredTargets.get(key);
        if (before == null || !before.member().equals(target)) {
            preferredTargets.put(key, new PreferredTarget(target, now));
        }
    }

    /**
     * The target remembered for a shard's allocation, or null: none, or remembered for longer than
     * {@link #PREFERRED_TARGET_NANOS} (a target that never gets a lease is given up, and the strategy places the
     * shard).
     */
    @Nullable
    Member preferredTarget(ShardKey key, long now) {
        PreferredTarget p = preferredTargets.get(key);
        if (p == null) {
            return null;
        }
        if (now - p.since() > PREFERRED_TARGET_NANOS || !view.contains(p.member())) {
            preferredTargets.remove(key);
            return null;
        }
        return p.member();
    }

    /** Requests wait until {@link ShardAllocator#retryWaiting} tries them again. */
    void await(ShardKey key, Collection<Member> requesters) {
        waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
    }

    /** Forgets every decision under way: the coordinator becomes inactive, or starts again on activation. */
    void clear() {
        state.clear();
        inProgress.clear();
        handoffs.clear();
        waiting.clear();
        preferredTargets.clear();
        leaving.clear();
        profiles.clear();
        placementStarted = false;
        rememberTypes.clear();
        fences.clear();
        epochs.clear();
    }

    /** The application version a member reported, empty if unversioned or not reported. */
    String version(Member m) {
        MemberProfile p = profiles.get(m);
        return p == null ? "" : p.appVersion();
    }

    /**
     * Why no shard may be placed yet, or {@code null} once placement started.
     *
     * @param ready whether a member counts: it must hold a lease, or it could not be given shards
     */
    @Nullable
    String placementWait(java.util.function.Predicate<Member> ready) {
        if (placementStarted) {
            return null;
        }
        long n = profiles.keySet().stream().filter(ready).count();
        if (n >= minNrOfMembers) {
            placementStarted = true;
            return null;
        }
        return "waiting for " + minNrOfMembers + " members (sharding.min-nr-of-members) before placing shards; " + n
                + " registered";
    }

    /** Every region of a type in the view, hosting or proxy. */
    Set<Member> allRegions(String typeName) {
        ShardTable.TypeTable t = state.type(typeName);
        Set<Member> all = new TreeSet<>();
        if (t != null) {
            all.addAll(t.regions().keySet());
            all.addAll(t.proxies());
        }
        all.retainAll(view);
        return all;
    }

    Allocation newAllocation(Member member, Set<Member> requesters, List<EntityTransfer> transfer, long transferEpoch) {
        return new Allocation(++allocations, member, new LinkedHashSet<>(requesters), transfer, transferEpoch);
    }

    /** One allocation under way: an epoch is taken, then {@code HostShard} is sent until {@code ShardStarted}. */
    static final class Allocation {

        /** Tells this allocation from a later one of the same shard when the store answers. */
        final long number;

        final Member member;

        final Set<Member> requesters;

        final List<EntityTransfer> transfer;

        final long transferEpoch;

        long epoch = -1;

        boolean epochRequested;

        /** Failed attempts to take the epoch: the first is logged as a warning, the others at debug level. */
        int epochFailures;

        long sentNanos;

        private Allocation(
                long number, Member member, Set<Member> requesters, List<EntityTransfer> transfer, long transferEpoch) {
            this.number = number;
            this.member = member;
            this.requesters = requesters;
            this.transfer = transfer;
            this.transferEpoch = transferEpoch;
        }
    }

    /** One handoff under way, on the coordinator's side. */
    static final class HandOff {

        final Member owner;

        final @Nullable Member target;

        /** The regions that buffer the shard's messages and acknowledge to the owner. */
        final List<Member> regions;

        /** Regions that asked for the shard's home meanwhile. */
        final Set<Member> requesters = new LinkedHashSet<>();

        long sentNanos;

        /** The rebalance round that started this handoff, or {@code null} for any other move. */
        RebalanceHistory.@Nullable Round round;

        HandOff(Member owner, @Nullable Member target, List<Member> regions, long sentNanos) {
            this.owner = owner;
            this.target = target;
            this.regions = regions;
            this.sentNanos = sentNanos;
        }
    }
}
