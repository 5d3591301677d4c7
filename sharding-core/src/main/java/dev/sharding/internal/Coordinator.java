package dev.sharding.internal;

import dev.sharding.Member;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.spi.ShardAllocationStrategy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard coordinator: decides where each shard lives. One exists on every node; only the one on the oldest member
 * of the JGroups view is active.
 *
 * <h2>Allocation</h2>
 * A region asks {@code GetShardHome} for a shard it has messages for. If the shard has a home the coordinator answers
 * at once. Otherwise it asks the {@link ShardAllocationStrategy} for a hosting region, sends it {@code HostShard},
 * and answers every region that asked meanwhile only when {@code ShardStarted} comes back, so no message reaches a
 * region before it hosts the shard. A request for a type no hosting region has registered yet waits for one.
 *
 * <h2>Activation and failover</h2>
 * When its node becomes the view's coordinator (at start, or because the previous one left or crashed), the
 * coordinator starts from an empty table, sends {@code GetShardStates} to every member and rebuilds the table from
 * the answers ({@code ShardStates}, or a {@code Register} that crossed). Until every member of the view answered or
 * left, it queues shard-home requests; shards whose homes the regions already know keep working meanwhile, because
 * regions only ask for unknown shards. If two members claim one shard (only after a partition heals), the claim
 * that arrived first is kept and the other is logged.
 *
 * <p>Every request is idempotent and repeated until answered: regions repeat {@code Register} and
 * {@code GetShardHome} every retry interval, the coordinator repeats {@code GetShardStates} and {@code HostShard};
 * a duplicate of any of them changes nothing.
 *
 * <h2>Members leaving</h2>
 * A member that leaves or crashes loses its regions and shards: they are allocated anew when next asked for, and an
 * allocation waiting for the member's {@code ShardStarted} is redone elsewhere.
 *
 * <p>Runs on the node's control thread only; nothing here blocks.
 */
final class Coordinator {

    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

    private final NodeRuntime node;

    private final ShardAllocationStrategy strategy;

    private boolean active;

    private boolean ready;

    private List<Member> view = List.of();

    private CoordinatorState state = CoordinatorState.EMPTY;

    private final Set<Member> awaitingStates = new HashSet<>();

    /** Allocations waiting for ShardStarted: shard key to the chosen member and the requesters to answer. */
    private final Map<ShardKey, Allocation> inProgress = new HashMap<>();

    /** Requests that wait: for readiness, or for a hosting region of their type. */
    private final Map<ShardKey, Set<Member>> waiting = new HashMap<>();

    Coordinator(NodeRuntime node, ShardAllocationStrategy strategy) {
        this.node = node;
        this.strategy = strategy;
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

    /** A new view. */
    void onView(List<Member> members, Set<Member> gone, Set<Member> joined) {
        this.view = members;
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
            waiting.clear();
            return;
        }
        if (!active) {
            active = true;
            ready = false;
            state = CoordinatorState.EMPTY;
            inProgress.clear();
            awaitingStates.clear();
            awaitingStates.addAll(members);
            log.info("Coordinator activated on {}; asking {} members for their shards", node.nodeName(),
                    members.size());
            for (Member m : members) {
                node.send(m, new GetShardStates(), false);
            }
            return;
        }
        for (Member m : gone) {
            state = state.apply(new CoordinatorState.MemberRemoved(m));
            awaitingStates.remove(m);
        }
        for (Member m : joined) {
            node.send(m, new GetShardStates(), false);
        }
        if (!gone.isEmpty()) {
            List<Map.Entry<ShardKey, Allocation>> redo = new ArrayList<>();
            for (Map.Entry<ShardKey, Allocation> e : inProgress.entrySet()) {
                if (gone.contains(e.getValue().member)) {
                    redo.add(e);
                }
            }
            for (Map.Entry<ShardKey, Allocation> e : redo) {
                inProgress.remove(e.getKey());
                Set<Member> requesters = new LinkedHashSet<>(e.getValue().requesters);
                requesters.removeAll(gone);
                waiting.computeIfAbsent(e.getKey(), k -> new LinkedHashSet<>()).addAll(requesters);
            }
            for (Set<Member> requesters : waiting.values()) {
                requesters.removeAll(gone);
            }
        }
        checkReady();
        retryWaiting();
    }

    /** A member reported its regions (Register or ShardStates). */
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
                log.error("Member {} runs {} with {} shards, but the cluster uses {}: its region is ignored;"
                        + " number-of-shards must be equal on every node", from, r.typeName(), r.numberOfShards(),
                        t.numberOfShards());
                continue;
            }
            boolean known = t != null && (t.regions().containsKey(from) || t.proxies().contains(from));
            if (!known) {
                try {
                    state = state.apply(new CoordinatorState.RegionRegistered(from, r.typeName(),
                            r.numberOfShards(), r.proxyOnly()));
                } catch (IllegalStateException e) {
                    log.error("Cannot register region of {} on {}: {}", r.typeName(), from, e.getMessage());
                    continue;
                }
            }
            for (int shard : r.hostedShards()) {
                Member home = state.home(r.typeName(), shard);
                if (home == null) {
                    state = state.apply(new CoordinatorState.ShardAllocated(r.typeName(), shard, from));
                } else if (!home.equals(from)) {
                    log.warn("Shard {} of {} is claimed by {} and {}; keeping it on {}", shard, r.typeName(), home,
                            from, home);
                }
            }
        }
        node.send(from, new RegisterAck(), false);
        awaitingStates.remove(from);
        checkReady();
        retryWaiting();
    }

    private void checkReady() {
        if (active && !ready && awaitingStates.isEmpty()) {
            ready = true;
            log.info("Coordinator on {} is ready: {} members, {} shards allocated", node.nodeName(), view.size(),
                    state.types().values().stream().mapToInt(t -> t.homes().size()).sum());
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
        allocate(key, Set.of(from));
    }

    private void allocate(ShardKey key, Set<Member> requesters) {
        CoordinatorState.TypeState t = state.type(key.typeName);
        if (t != null && (key.shardId < 0 || key.shardId >= t.numberOfShards())) {
            log.warn("Ignoring request for shard {} of {}: out of range", key.shardId, key.typeName);
            return;
        }
        Member home = state.home(key.typeName, key.shardId);
        if (home != null) {
            for (Member r : requesters) {
                node.send(r, new ShardHome(key.typeName, key.shardId, home), false);
            }
            return;
        }
        Allocation pending = inProgress.get(key);
        if (pending != null) {
            pending.requesters.addAll(requesters);
            return;
        }
        if (t == null || t.regions().isEmpty()) {
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            return;
        }
        Member requester = requesters.iterator().next();
        Member chosen = strategy.allocate(requester, key.shardId, t.regions());
        if (!t.regions().containsKey(chosen)) {
            log.error("Allocation strategy chose {} for shard {} of {}, which hosts no region of it", chosen,
                    key.shardId, key.typeName);
            waiting.computeIfAbsent(key, k -> new LinkedHashSet<>()).addAll(requesters);
            return;
        }
        inProgress.put(key, new Allocation(chosen, new LinkedHashSet<>(requesters), System.nanoTime()));
        node.send(chosen, new HostShard(key.typeName, key.shardId), false);
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
        for (Member r : pending.requesters) {
            if (!r.equals(from)) {
                node.send(r, new ShardHome(typeName, shardId, from), false);
            }
        }
    }

    /** Periodic: asks missing members again and retries waiting requests. */
    void tick() {
        if (!active) {
            return;
        }
        for (Member m : awaitingStates) {
            node.send(m, new GetShardStates(), false);
        }
        // HostShard is idempotent: ask again when ShardStarted is late (or was lost)
        long now = System.nanoTime();
        long interval = node.settings().retryInterval().toNanos();
        inProgress.forEach((key, allocation) -> {
            if (now - allocation.sentNanos >= interval) {
                allocation.sentNanos = now;
                node.send(allocation.member, new HostShard(key.typeName, key.shardId), false);
            }
        });
        retryWaiting();
    }

    private void retryWaiting() {
        if (!ready || waiting.isEmpty()) {
            return;
        }
        Map<ShardKey, Set<Member>> again = new HashMap<>(waiting);
        waiting.clear();
        again.forEach((key, requesters) -> {
            if (!requesters.isEmpty()) {
                allocate(key, requesters);
            }
        });
    }

    private record ShardKey(String typeName, int shardId) {
    }

    private static final class Allocation {

        final Member member;

        final Set<Member> requesters;

        long sentNanos;

        Allocation(Member member, Set<Member> requesters, long sentNanos) {
            this.member = member;
            this.requesters = requesters;
            this.sentNanos = sentNanos;
        }
    }
}
