package dev.sharding.internal;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.BeginHandOff;
import dev.sharding.internal.protocol.CoordinatorMessage;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.HandOff;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.RegisterRefused;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import dev.sharding.internal.protocol.StopShard;
import dev.sharding.spi.ShardAllocationStrategy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard coordinator: decides where each shard lives and when it moves. One exists on every node; only the one on
 * the oldest member of the JGroups view is active.
 *
 * <h2>Allocation</h2>
 * A region asks {@code GetShardHome} for a shard it has messages for. If the shard has a home the coordinator answers
 * at once. Otherwise it asks the {@link ShardAllocationStrategy} for a hosting region (never a leaving one), sends it
 * {@code HostShard}, and answers every region that asked meanwhile only when {@code ShardStarted} comes back, so no
 * message reaches a region before it hosts the shard. Each allocation takes a new epoch from the store before
 * {@code HostShard} goes out, so that a previous owner's writes are refused from then on. A request for a type no
 * hosting region has registered yet waits for one.
 *
 * <h2>Handoff</h2>
 * Moving a shard (rebalance, graceful leave, operator request) follows Pekko's protocol with one change that keeps
 * every message: {@code BeginHandOff} goes to every region of the type, which from then on buffers the shard's
 * messages and acknowledges <em>to the owner</em>, on the same ordered link as its messages, so when the owner has
 * every acknowledgement it has every message sent to it before. {@code HandOff} tells the owner which acknowledgements
 * to wait for; the owner then stops the shard's entities (after the messages already in their mailboxes) and answers
 * {@code ShardStopped}, with the stored state of the entities it stopped. The coordinator allocates the shard again at
 * once (so the new home is warm, and gets that state without reading the store) and sends the new home to every
 * region of the type, which send their buffers on in order. No {@code GetShardHome} for a moving shard
 * is answered until then. If the owner crashes meanwhile, its shards are gone and the moving shard is allocated anew
 * as if it had stopped; a region that crashes is not waited for (the owner sees the view too). {@code BeginHandOff}
 * and {@code HandOff} are repeated every retry interval until the owner answers; the owner bounds its part by
 * {@code handoff-timeout}.
 *
 * <h2>Rebalancing</h2>
 * Every {@code rebalance-interval} the strategy picks shards to move, per type, if the view has been stable for one
 * interval (no member joined or left), no member is leaving, and nothing is moving. When a round's moves are done and
 * it moved something, the next round starts at once instead of at the next tick, so a new member reaches its share
 * in a few handoff times rather than a few intervals.
 *
 * <h2>Graceful leave</h2>
 * A leaving member's {@code GracefulShutdownRequest} marks it leaving (it gets no new shards) and starts the handoff
 * of every shard it hosts, without the rebalance limit; the member leaves once it hosts nothing.
 *
 * <h2>Activation and failover</h2>
 * When its node becomes the view's coordinator (at start, or because the previous one left or crashed), the
 * coordinator starts from an empty table, sends {@code GetShardStates} to every member and rebuilds the table from
 * the answers ({@code ShardStates}, or a {@code Register} that crossed). Until every member of the view answered or
 * left, it queues shard-home requests; shards whose homes the regions already know keep working meanwhile, because
 * regions only ask for unknown shards. Reports carry each shard's epoch: if two members report one shard (after the
 * sides of a partition merged), the newer epoch keeps it and the other copy gets {@code StopShard}; a shard the
 * table gives a member that no longer reports it loses its home. A handoff the previous coordinator started completes
 * on its own: the owner's {@code ShardStopped} deallocates the shard here too.
 *
 * <h2>Partitions</h2>
 * The coordinator allocates only while {@link LeaseKeeper#inCharge} says its side may run. A member that left the
 * view fences its shards until every lease it could hold has ended ({@link LeaseKeeper#fenceFor}); a newly active
 * coordinator fences every shard no member reports for one lease duration. Requests for a fenced shard wait and are
 * tried again when the fence ends. Only members holding a lease are given shards.
 *
 * <p>Every request is idempotent and repeated until answered: regions repeat {@code Register} and
 * {@code GetShardHome} every retry interval, the coordinator repeats {@code GetShardStates}, {@code HostShard},
 * {@code BeginHandOff} and {@code HandOff}; a duplicate of any of them changes nothing.
 *
 * <p>Runs on the node's control thread only; nothing here blocks.
 */
final class Coordinator implements CoordinatorMessage.Handler {

    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

    private final NodeRuntime node;

    private final ShardAllocationStrategy strategy;

    private final LeaseKeeper leases;

    /** When a shard that may still be served elsewhere may be taken over. */
    private final ShardFences fences = new ShardFences();

    /** The epoch of each allocated shard, as allocated here or reported by its region. */
    private final Map<ShardKey, Long> epochs = new HashMap<>();

    /** When a retry of the waiting requests is scheduled for, or {@code Long.MIN_VALUE}. */
    private long retryAtNanos = Long.MIN_VALUE;

    private boolean active;

    private boolean ready;

    private List<Member> view = List.of();

    private CoordinatorState state = CoordinatorState.EMPTY;

    private final Set<Member> awaitingStates = new HashSet<>();

    /** Allocations waiting for ShardStarted. */
    private final Map<ShardKey, Allocation> inProgress = new HashMap<>();

    /** Shards being handed off. */
    private final Map<ShardKey, HandOffState> handoffs = new LinkedHashMap<>();

    /** Requests that wait: for readiness, or for a hosting region of their type. */
    private final Map<ShardKey, Set<Member>> waiting = new HashMap<>();

    private final Set<Member> leaving = new HashSet<>();

    // ---- messages to the coordinator ---------------------------------------------------------------------------

    @Override
    public void onRegister(Member from, Register m) {
        onRegister(from, m.regions(), m.storeId());
    }

    @Override
    public void onShardStates(Member from, ShardStates m) {
        onRegionStates(from, m.regions());
    }

    @Override
    public void onGetShardHome(Member from, GetShardHome m) {
        onGetShardHome(from, m.typeName(), m.shardId());
    }

    @Override
    public void onShardStarted(Member from, ShardStarted m) {
        onShardStarted(from, m.typeName(), m.shardId());
    }

    @Override
    public void onShardStopped(Member from, ShardStopped m) {
        onShardStopped(from, m.typeName(), m.shardId(), m.epoch(), m.transfer());
    }

    @Override
    public void onGracefulShutdownRequest(Member from, GracefulShutdownRequest m) {
        onGracefulShutdown(from);
    }

    @Override
    public void onAdminRequest(Member from, AdminRequest m) {
        if (active) {
            onAdminRequest(from, m.requestId(), m.typeName(), m.shardId(), m.targetNode());
        } else {
            node.send(
                    from,
                    new AdminReply(
                            m.requestId(), false, "Node " + node.nodeName() + " is not the coordinator; try again"),
                    false);
        }
    }

    /** Types whose regions remember their entities: their remembered shards are allocated without waiting. */
    private final Set<String> rememberTypes = new HashSet<>();

    private final RebalanceGate rebalance;

    Coordinator(NodeRuntime node, ShardAllocationStrategy strategy, LeaseKeeper leases) {
        this.node = node;
        this.strategy = strategy;
        this.leases = leases;
        this.rebalance = new RebalanceGate(node.settings().rebalanceInterval().toNanos(), System.nanoTime());
    }

    boolean isActive() {
        return active;
    }

    boolean isReady() {
        return active && ready;
    }

    CoordinatorState state() {
        return state;
    }

    /** Shards being handed off now, as "type/shard". */
    List<String> handoffsInProgress() {
        List<String> list = new ArrayList<>();
        handoffs.keySet().forEach(k -> list.add(k.typeName() + "/" + k.shardId()));
        return list;
    }

    Set<Member> leavingMembers() {
        return Set.copyOf(leaving);
    }

    /** A new view. */
    void onView(List<Member> members, Set<Member> gone, Set<Member> joined) {
        this.view = members;
        if (!gone.isEmpty() || !joined.isEmpty()) {
            rebalance.viewChanged(System.nanoTime());
        }
        boolean coordinator = !members.isEmpty() && members.get(0).equals(node.self());
        if (!coordinator) {
            if (active) {
                log.info("Coordinator on {} is no longer active", node.nodeName());
            }
            active = false;
            ready = false;
            state = CoordinatorState.EMPTY;
            awaitingStates.clear();
            inProgress.clear();
            handoffs.clear();
            waiting.clear();
            leaving.clear();
            rememberTypes.clear();
            fences.clear();
            epochs.clear();
            return;
        }
        long now = System.nanoTime();
        if (!active) {
            active = true;
            ready = false;
            state = CoordinatorState.EMPTY;
            inProgress.clear();
            handoffs.clear();
            leaving.clear();
            fences.activated(leases.activationFence(now));
            epochs.clear();
            awaitingStates.clear();
            awaitingStates.addAll(members);
            log.info(
                    "Coordinator activated on {}; asking {} members for their shards", node.nodeName(), members.size());
            for (Member m : members) {
                node.send(m, new GetShardStates(), false);
            }
            return;
        }
        leaving.removeAll(gone);
        for (Member m : gone) {
            // its shards may still be served there until its lease has surely ended
            long fence = leases.fenceFor(m, now);
            state.types()
                    .forEach((typeName, t) -> t.homes().forEach((shard, home) -> {
                        if (home.equals(m)) {
                            ShardKey key = new ShardKey(typeName, shard);
                            fences.memberLeft(key, fence, now);
                            epochs.remove(key);
                        }
                    }));
            inProgress.forEach((key, a) -> {
                if (a.member.equals(m)) {
                    fences.memberLeft(key, fence, now);
                }
            });
            state = state.apply(new CoordinatorState.MemberRemoved(m));
            awaitingStates.remove(m);
        }
        for (Member m : joined) {
            node.send(m, new GetShardStates(), false);
        }
        if (!gone.isEmpty()) {
            List<ShardKey> redo = new ArrayList<>();
            inProgress.forEach((key, a) -> {
                if (gone.contains(a.member)) {
                    redo.add(key);
                }
            });
            for (ShardKey key : redo) {
                Allocation a = inProgress.remove(key);
                Set<Member> requesters = new LinkedHashSet<>(a.requesters);
                requesters.removeAll(gone);
                waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            }
            List<ShardKey> orphaned = new ArrayList<>();
            handoffs.forEach((key, h) -> {
                if (gone.contains(h.owner)) {
                    orphaned.add(key);
                }
            });
            for (ShardKey key : orphaned) {
                // the owner crashed or left mid-handoff: its shards are gone, so the handoff is complete
                HandOffState h = handoffs.remove(key);
                log.info(
                        "Owner {} of shard {} of {} left during its handoff; allocating it anew",
                        h.owner,
                        key.shardId(),
                        key.typeName());
                reallocate(key, h, gone, List.of(), 0);
            }
            for (Set<Member> requesters : waiting.values()) {
                requesters.removeAll(gone);
            }
        }
        checkReady();
        retryWaiting();
        if (!gone.isEmpty()) {
            allocateRemembered(); // the gone members' remembered entities start elsewhere now
        }
        maybeNextRound();
    }

    /** A member registers its regions: refused for good if it does not share the store or the number of shards. */
    void onRegister(Member from, List<RegionInfo> regions, String storeId) {
        if (!active) {
            return;
        }
        String own = node.storeId();
        if (!own.isEmpty() && !storeId.equals(own)) {
            refuse(
                    from,
                    "node " + from + " uses another store (id " + (storeId.isEmpty() ? "none: not shared" : storeId)
                            + ") than the cluster's coordinator " + node.nodeName() + " (id " + own + "); every "
                            + "node of a cluster must use one shared database (sharding.store, spring.datasource.url)");
            return;
        }
        onRegionStates(from, regions);
        leases.pingNow(from);
    }

    private void refuse(Member from, String reason) {
        log.error("Refused {}: {}", from, reason);
        node.send(from, new RegisterRefused(reason), false);
        awaitingStates.remove(from);
        checkReady();
    }

    /**
     * A member reported its regions and every shard they host, with epochs (Register or ShardStates). The table
     * follows the report: a shard it hosts and nobody else does is its; a shard two members host stays with the newer
     * epoch, and the other copy is stopped; a shard the table gave it and it no longer hosts has no home any more.
     */
    void onRegionStates(Member from, List<RegionInfo> regions) {
        if (!active) {
            return; // the member retries with whoever is the coordinator
        }
        if (!view.contains(from)) {
            log.debug("Ignoring regions of {}: not in the view", from);
            return;
        }
        for (RegionInfo r : regions) {
            CoordinatorState.TypeState t = state.type(r.typeName());
            if (t != null && t.numberOfShards() != r.numberOfShards()) {
                refuse(
                        from,
                        "node " + from + " runs entity type " + r.typeName() + " with " + r.numberOfShards()
                                + " shards, but the cluster uses " + t.numberOfShards()
                                + "; number-of-shards must be equal "
                                + "on every node");
                return;
            }
        }
        for (RegionInfo r : regions) {
            if (r.rememberEntities() && rememberTypes.add(r.typeName()) && ready) {
                allocateRemembered();
            }
            CoordinatorState.TypeState t = state.type(r.typeName());
            boolean known =
                    t != null && (t.regions().containsKey(from) || t.proxies().contains(from));
            if (!known) {
                try {
                    state = state.apply(new CoordinatorState.RegionRegistered(
                            from, r.typeName(), r.numberOfShards(), r.proxyOnly()));
                } catch (IllegalStateException e) {
                    log.error("Cannot register region of {} on {}: {}", r.typeName(), from, e.getMessage());
                    continue;
                }
            }
            reconcile(from, r, known);
        }
        node.send(from, new RegisterAck(), false);
        awaitingStates.remove(from);
        checkReady();
        retryWaiting();
    }

    private void reconcile(Member from, RegionInfo r, boolean known) {
        Set<Integer> reported = new HashSet<>();
        for (int i = 0; i < r.hostedShards().length; i++) {
            int shard = r.hostedShards()[i];
            long epoch = r.hostedEpochs()[i];
            reported.add(shard);
            ShardKey key = new ShardKey(r.typeName(), shard);
            Member home = state.home(r.typeName(), shard);
            Allocation pending = inProgress.get(key);
            if (home == null && pending != null) {
                if (pending.member.equals(from) && pending.epoch == epoch) {
                    onShardStarted(from, r.typeName(), shard);
                } else if (pending.epoch < 0 || epoch < pending.epoch) {
                    stop(from, key, epoch, "an allocation of it is under way");
                }
            } else if (home == null) {
                state = state.apply(new CoordinatorState.ShardAllocated(r.typeName(), shard, from));
                epochs.put(key, epoch);
                fences.reported(key);
                if (ready && !known) {
                    // a member that hosted shards before it joined comes from another part of a split cluster:
                    // leases granted there may still cover shards nobody reports
                    fences.merged(leases.mergeFence(System.nanoTime()));
                }
            } else if (home.equals(from)) {
                epochs.merge(key, epoch, Math::max);
            } else {
                long current = epochs.getOrDefault(key, 0L);
                if (epoch > current) {
                    stop(home, key, current, "member " + from + " hosts epoch " + epoch);
                    state = state.apply(new CoordinatorState.ShardDeallocated(r.typeName(), shard));
                    state = state.apply(new CoordinatorState.ShardAllocated(r.typeName(), shard, from));
                    epochs.put(key, epoch);
                } else {
                    stop(from, key, epoch, "member " + home + " hosts epoch " + current);
                }
            }
        }
        CoordinatorState.TypeState t = state.type(r.typeName());
        if (t == null) {
            return;
        }
        List<Integer> lost = new ArrayList<>();
        t.homes().forEach((shard, home) -> {
            ShardKey key = new ShardKey(r.typeName(), shard);
            if (home.equals(from) && !reported.contains(shard) && !handoffs.containsKey(key)) {
                lost.add(shard);
            }
        });
        for (int shard : lost) {
            log.info(
                    "Member {} no longer hosts shard {} of {}; it has no home until asked for",
                    from,
                    shard,
                    r.typeName());
            state = state.apply(new CoordinatorState.ShardDeallocated(r.typeName(), shard));
            epochs.remove(new ShardKey(r.typeName(), shard));
        }
    }

    private void stop(Member holder, ShardKey key, long epoch, String why) {
        log.warn(
                "Shard {} of {} is hosted twice; stopping the copy of epoch {} on {}: {}",
                key.shardId(),
                key.typeName(),
                epoch,
                holder,
                why);
        node.send(holder, new StopShard(key.typeName(), key.shardId(), epoch), false);
    }

    private void checkReady() {
        if (active && !ready && awaitingStates.isEmpty()) {
            ready = true;
            rebalance.ready(System.nanoTime());
            log.info(
                    "Coordinator on {} is ready: {} members, {} shards allocated",
                    node.nodeName(),
                    view.size(),
                    state.types().values().stream()
                            .mapToInt(t -> t.homes().size())
                            .sum());
            allocateRemembered();
        }
    }

    /**
     * Allocates every shard that has remembered entities and no home, so that its entities start without waiting
     * for a message: after a start of the whole cluster, and when a member is gone.
     */
    private void allocateRemembered() {
        for (String typeName : List.copyOf(rememberTypes)) {
            node.store()
                    .shardsWithRemembered(typeName)
                    .whenComplete((shards, failure) -> node.control().execute(() -> {
                        if (failure != null) {
                            log.warn("Cannot read the remembered shards of {}: {}", typeName, failure.toString());
                            return;
                        }
                        if (!active || !ready) {
                            return;
                        }
                        for (int shard : shards) {
                            ShardKey key = new ShardKey(typeName, shard);
                            if (state.home(typeName, shard) == null
                                    && !inProgress.containsKey(key)
                                    && !handoffs.containsKey(key)) {
                                allocate(key, allRegions(typeName), null, List.of());
                            }
                        }
                    }));
        }
    }

    /** A region asks where a shard lives. */
    void onGetShardHome(Member from, String typeName, int shardId) {
        if (!active) {
            return;
        }
        ShardKey key = new ShardKey(typeName, shardId);
        if (!ready) {
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(from);
            return;
        }
        allocate(key, Set.of(from), null, List.of());
    }

    /**
     * The regions of a type that may take new shards (registered, in the view, not leaving), with their shards,
     * counting allocations still waiting for ShardStarted so that a burst of requests is spread too.
     */
    private Map<Member, Set<Integer>> candidates(String typeName, CoordinatorState.TypeState t) {
        Map<Member, Set<Integer>> map = new HashMap<>();
        t.regions().forEach((m, shards) -> {
            if (!leaving.contains(m)) {
                map.put(m, new HashSet<>(shards));
            }
        });
        inProgress.forEach((key, a) -> {
            Set<Integer> shards = map.get(a.member);
            if (shards != null && key.typeName().equals(typeName)) {
                shards.add(key.shardId());
            }
        });
        return map;
    }

    private void allocate(
            ShardKey key, Set<Member> requesters, @Nullable Member preferred, List<EntityTransfer> transfer) {
        allocate(key, requesters, preferred, transfer, 0);
    }

    private void allocate(
            ShardKey key,
            Set<Member> requesters,
            @Nullable Member preferred,
            List<EntityTransfer> transfer,
            long transferEpoch) {
        CoordinatorState.TypeState t = state.type(key.typeName());
        if (t != null && (key.shardId() < 0 || key.shardId() >= t.numberOfShards())) {
            log.warn("Ignoring request for shard {} of {}: out of range", key.shardId(), key.typeName());
            return;
        }
        HandOffState moving = handoffs.get(key);
        if (moving != null) {
            moving.requesters.addAll(requesters);
            return;
        }
        Member home = state.home(key.typeName(), key.shardId());
        if (home != null) {
            for (Member r : requesters) {
                node.send(r, new ShardHome(key.typeName(), key.shardId(), home), false);
            }
            return;
        }
        Allocation pending = inProgress.get(key);
        if (pending != null) {
            pending.requesters.addAll(requesters);
            return;
        }
        long now = System.nanoTime();
        if (!leases.inCharge(now)) {
            // this side may not run, or has not heard from enough members yet: the requests wait
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            return;
        }
        ShardFences.Verdict verdict = fences.check(key, now, leases::confirmedSince);
        if (verdict == ShardFences.Verdict.WAIT_FOR_LEASES) {
            // a member that left may still serve the shard until its lease ends
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            retryAt(fences.until());
            return;
        }
        if (verdict == ShardFences.Verdict.WAIT_FOR_CONFIRMATION) {
            // and this side must still run since it saw the member leave: a winning set confirmed it since
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            retryAt(now + 50_000_000L);
            return;
        }
        Map<Member, Set<Integer>> candidates = t == null ? Map.of() : candidates(key.typeName(), t);
        candidates.keySet().removeIf(m -> !leases.leased(m, now));
        if (candidates.isEmpty()) {
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            return;
        }
        Member chosen;
        if (preferred != null && candidates.containsKey(preferred)) {
            chosen = preferred;
        } else {
            Member requester =
                    requesters.isEmpty() ? view.get(0) : requesters.iterator().next();
            chosen = strategy.allocate(requester, key.shardId(), candidates);
        }
        if (!candidates.containsKey(chosen)) {
            log.error(
                    "Allocation strategy chose {} for shard {} of {}, which cannot take it",
                    chosen,
                    key.shardId(),
                    key.typeName());
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            return;
        }
        Allocation allocation = new Allocation(chosen, new LinkedHashSet<>(requesters), transfer, transferEpoch);
        inProgress.put(key, allocation);
        requestEpoch(key, allocation);
    }

    /** Takes a new epoch for an allocation from the store, then sends HostShard. */
    private void requestEpoch(ShardKey key, Allocation allocation) {
        allocation.epochRequested = true;
        node.store()
                .nextEpoch(key.typeName(), key.shardId())
                .whenComplete((epoch, failure) -> node.control().execute(() -> {
                    allocation.epochRequested = false;
                    if (inProgress.get(key) != allocation) {
                        return;
                    }
                    if (failure != null) {
                        log.warn(
                                "Cannot take a new epoch for shard {} of {} from the store; trying again: {}",
                                key.shardId(),
                                key.typeName(),
                                failure.toString());
                        return;
                    }
                    allocation.epoch = epoch;
                    sendHostShard(key, allocation);
                }));
    }

    private void sendHostShard(ShardKey key, Allocation allocation) {
        allocation.sentNanos = System.nanoTime();
        node.send(
                allocation.member,
                new HostShard(
                        key.typeName(), key.shardId(), allocation.epoch, allocation.transferEpoch, allocation.transfer),
                false);
    }

    /** A region started hosting a shard. */
    void onShardStarted(Member from, String typeName, int shardId) {
        if (!active) {
            return;
        }
        ShardKey key = new ShardKey(typeName, shardId);
        Allocation pending = inProgress.get(key);
        if (pending == null || !pending.member.equals(from)) {
            log.debug("Unexpected ShardStarted of {} {} from {}", typeName, shardId, from);
            return;
        }
        inProgress.remove(key);
        state = state.apply(new CoordinatorState.ShardAllocated(typeName, shardId, from));
        epochs.put(key, pending.epoch);
        for (Member r : pending.requesters) {
            if (!r.equals(from)) {
                node.send(r, new ShardHome(typeName, shardId, from), false);
            }
        }
        if (leaving.contains(from)) {
            startHandOff(key, from, null);
        }
    }

    // ---- handoff -----------------------------------------------------------------------------------------------

    private void startHandOff(ShardKey key, Member owner, @Nullable Member target) {
        CoordinatorState.TypeState t = state.type(key.typeName());
        if (t == null || handoffs.containsKey(key) || !owner.equals(t.homes().get(key.shardId()))) {
            return;
        }
        Set<Member> regions = new TreeSet<>(t.regions().keySet());
        regions.addAll(t.proxies());
        regions.retainAll(view);
        HandOffState h = new HandOffState(owner, target, List.copyOf(regions), System.nanoTime());
        handoffs.put(key, h);
        log.debug("Handing off shard {} of {} from {} (regions {})", key.shardId(), key.typeName(), owner, regions);
        sendHandOff(key, h);
    }

    private void sendHandOff(ShardKey key, HandOffState h) {
        for (Member r : h.regions) {
            node.send(r, new BeginHandOff(key.typeName(), key.shardId(), h.owner), false);
        }
        node.send(h.owner, new HandOff(key.typeName(), key.shardId(), h.regions), false);
    }

    /** The owner stopped a shard. */
    void onShardStopped(Member from, String typeName, int shardId, long epoch, List<EntityTransfer> transfer) {
        if (!active) {
            return;
        }
        ShardKey key = new ShardKey(typeName, shardId);
        HandOffState h = handoffs.get(key);
        if (h != null && h.owner.equals(from)) {
            handoffs.remove(key);
            if (from.equals(state.home(typeName, shardId))) {
                state = state.apply(new CoordinatorState.ShardDeallocated(typeName, shardId));
            }
            epochs.remove(key);
            reallocate(key, h, Set.of(), transfer, epoch);
            maybeNextRound();
        } else if (from.equals(state.home(typeName, shardId))) {
            // a handoff the previous coordinator started completed
            state = state.apply(new CoordinatorState.ShardDeallocated(typeName, shardId));
            epochs.remove(key);
            Set<Member> requesters = waiting.remove(key);
            allocate(key, requesters == null ? allRegions(typeName) : requesters, null, transfer, epoch);
        }
    }

    /** Allocates a handed-off shard at once and tells every region of the type (they all buffer for it). */
    private void reallocate(
            ShardKey key, HandOffState h, Set<Member> gone, List<EntityTransfer> transfer, long transferEpoch) {
        Set<Member> requesters = new LinkedHashSet<>(h.regions);
        requesters.addAll(h.requesters);
        requesters.addAll(allRegions(key.typeName()));
        requesters.removeAll(gone);
        requesters.retainAll(view);
        Member target = h.target != null && !gone.contains(h.target) ? h.target : null;
        allocate(key, requesters, target, transfer, transferEpoch);
    }

    private Set<Member> allRegions(String typeName) {
        CoordinatorState.TypeState t = state.type(typeName);
        Set<Member> all = new TreeSet<>();
        if (t != null) {
            all.addAll(t.regions().keySet());
            all.addAll(t.proxies());
        }
        all.retainAll(view);
        return all;
    }

    /** A member is leaving: hand off all its shards and give it no new ones. */
    void onGracefulShutdown(Member from) {
        if (!active || !view.contains(from)) {
            return;
        }
        if (leaving.add(from)) {
            log.info("Member {} is leaving; handing off its shards", from);
        }
        state.types()
                .forEach((typeName, t) -> t.homes().forEach((shard, home) -> {
                    if (home.equals(from)) {
                        startHandOff(new ShardKey(typeName, shard), from, null);
                    }
                }));
    }

    // ---- rebalancing -------------------------------------------------------------------------------------------

    /** One rebalance round over every type; returns how many shards it started moving. */
    private int rebalanceRound() {
        int moved = 0;
        for (Map.Entry<String, CoordinatorState.TypeState> e : new TreeMap<>(state.types()).entrySet()) {
            String typeName = e.getKey();
            CoordinatorState.TypeState t = e.getValue();
            Map<Member, Set<Integer>> candidates = candidates(typeName, t);
            Set<Integer> moving = new HashSet<>();
            handoffs.keySet().stream()
                    .filter(k -> k.typeName().equals(typeName))
                    .forEach(k -> moving.add(k.shardId()));
            Set<Integer> chosen;
            try {
                chosen = strategy.rebalance(candidates, moving);
            } catch (RuntimeException ex) {
                log.error("Allocation strategy failed to rebalance {}", typeName, ex);
                continue;
            }
            for (int shard : chosen) {
                Member owner = t.homes().get(shard);
                if (owner != null) {
                    startHandOff(new ShardKey(typeName, shard), owner, null);
                    moved++;
                }
            }
        }
        if (moved > 0) {
            log.info("Rebalance on {}: moving {} shards", node.nodeName(), moved);
        }
        rebalance.roundStarted(moved, System.nanoTime());
        return moved;
    }

    private void maybeNextRound() {
        if (active && rebalance.nextRoundAtOnce(System.nanoTime(), ready, handoffs.isEmpty(), leaving.isEmpty())) {
            rebalanceRound();
        }
    }

    /** An operator asks for a rebalance round now, or for one shard to move. */
    void onAdminRequest(
            Member from, long requestId, @Nullable String typeName, int shardId, @Nullable String targetNode) {
        String refusal = null;
        String done = null;
        if (!active || !ready) {
            refusal = "The coordinator on " + node.nodeName() + " is not ready";
        } else if (typeName == null) {
            if (!handoffs.isEmpty()) {
                refusal = "A rebalance or handoff is already in progress: " + handoffsInProgress();
            } else {
                int moved = rebalanceRound();
                done = moved == 0 ? "Balanced: no shard to move" : "Rebalance started: moving " + moved + " shards";
            }
        } else {
            ShardMoveRequest move = ShardMoveRequest.judge(
                    state,
                    view,
                    leaving,
                    id -> handoffs.containsKey(new ShardKey(typeName, id)),
                    typeName,
                    shardId,
                    targetNode);
            refusal = move.refusal();
            if (refusal == null) {
                startHandOff(
                        new ShardKey(typeName, shardId), java.util.Objects.requireNonNull(move.owner()), move.target());
                done = move.accepted(typeName, shardId);
            }
        }
        node.send(from, new AdminReply(requestId, refusal == null, refusal == null ? done : refusal), false);
    }

    /** Periodic: asks missing members again, repeats unanswered requests, rebalances. */
    void tick() {
        if (!active) {
            return;
        }
        for (Member m : awaitingStates) {
            node.send(m, new GetShardStates(), false);
        }
        long now = System.nanoTime();
        long interval = node.settings().retryInterval().toNanos();
        // HostShard, BeginHandOff and HandOff are idempotent: repeat them when the answer is late (or was lost)
        inProgress.forEach((key, allocation) -> {
            if (allocation.epoch < 0) {
                if (!allocation.epochRequested) {
                    requestEpoch(key, allocation);
                }
            } else if (now - allocation.sentNanos >= interval) {
                sendHostShard(key, allocation);
            }
        });
        handoffs.forEach((key, h) -> {
            if (now - h.sentNanos >= interval) {
                h.sentNanos = now;
                sendHandOff(key, h);
            }
        });
        retryWaiting();
        if (rebalance.periodicRoundDue(now, ready, handoffs.isEmpty(), leaving.isEmpty())) {
            rebalanceRound();
        }
    }

    /** A member got its first lease, or this coordinator may run again: waiting requests are tried now. */
    void retryWaitingNow() {
        if (active) {
            retryWaiting();
        }
    }

    /** Tries the waiting requests again at a time (a fence ends then), unless an earlier retry is scheduled. */
    private void retryAt(long atNanos) {
        long now = System.nanoTime();
        if (retryAtNanos != Long.MIN_VALUE && retryAtNanos - now > 0 && retryAtNanos - atNanos <= 0) {
            return;
        }
        retryAtNanos = atNanos;
        node.control()
                .schedule(
                        () -> {
                            if (retryAtNanos == atNanos) {
                                retryAtNanos = Long.MIN_VALUE;
                            }
                            retryWaitingNow();
                        },
                        Math.max(0, atNanos - now) + 1_000_000L,
                        java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    private void retryWaiting() {
        if (!ready || waiting.isEmpty()) {
            return;
        }
        Map<ShardKey, Set<Member>> again = new HashMap<>(waiting);
        waiting.clear();
        again.forEach((key, requesters) -> {
            if (!requesters.isEmpty()) {
                allocate(key, requesters, null, List.of());
            }
        });
    }

    private static final class Allocation {

        final Member member;

        final Set<Member> requesters;

        final List<EntityTransfer> transfer;

        final long transferEpoch;

        long epoch = -1;

        boolean epochRequested;

        long sentNanos;

        Allocation(Member member, Set<Member> requesters, List<EntityTransfer> transfer, long transferEpoch) {
            this.member = member;
            this.requesters = requesters;
            this.transfer = transfer;
            this.transferEpoch = transferEpoch;
        }
    }

    private static final class HandOffState {

        final Member owner;

        final @Nullable Member target;

        final List<Member> regions;

        final Set<Member> requesters = new LinkedHashSet<>();

        long sentNanos;

        HandOffState(Member owner, @Nullable Member target, List<Member> regions, long sentNanos) {
            this.owner = owner;
            this.target = target;
            this.regions = regions;
            this.sentNanos = sentNanos;
        }
    }
}
