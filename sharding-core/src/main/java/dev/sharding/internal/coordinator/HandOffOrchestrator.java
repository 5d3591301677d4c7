package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.CoordinatorTables.HandOff;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.BeginHandOff;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.ShardStopped;
import dev.sharding.spi.ShardAllocationStrategy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's side of moving shards: it starts a handoff ({@code BeginHandOff} to every region of the type,
 * {@code HandOff} to the owner, both repeated until the owner answers), allocates the shard again at once when the
 * owner's {@code ShardStopped} comes (or the owner is gone), and decides what moves: rebalance rounds gated by
 * {@link RebalanceGate}, every shard of a leaving member, and an operator's request.
 *
 * <p>Part of the coordinator's decision core: it only records effects in {@link CoordinatorTables}. Control thread only.
 */
final class HandOffOrchestrator {

    private static final Logger log = LoggerFactory.getLogger(HandOffOrchestrator.class);

    private final CoordinatorTables t;

    private final ShardAllocator allocator;

    private final ShardAllocationStrategy strategy;

    /** Whether the last rebalance round skipped a type because its regions run different application versions. */
    private boolean pausedByVersions;

    private final long retryIntervalNanos;

    HandOffOrchestrator(
            CoordinatorTables tables,
            ShardAllocator allocator,
            ShardAllocationStrategy strategy,
            long retryIntervalNanos) {
        this.t = tables;
        this.allocator = allocator;
        this.strategy = strategy;
        this.retryIntervalNanos = retryIntervalNanos;
    }

    /** Shards being handed off now, as "type/shard". */
    List<String> inProgress() {
        List<String> list = new ArrayList<>();
        t.handoffs.keySet().forEach(k -> list.add(k.typeName() + "/" + k.shardId()));
        return list;
    }

    /** Starts moving a shard from its owner, to a target or wherever the strategy allocates it. */
    void start(ShardKey key, Member owner, @Nullable Member target) {
        start(key, owner, target, null);
    }

    /**
     * Starts moving a shard from its owner, to a target or wherever the strategy allocates it, as part of a rebalance
     * round or not.
     *
     * @return whether the handoff started (false if the shard is already moving or no longer the owner's)
     */
    private boolean start(ShardKey key, Member owner, @Nullable Member target, RebalanceHistory.@Nullable Round round) {
        ShardTable.TypeTable type = t.state.type(key.typeName());
        if (type == null
                || t.handoffs.containsKey(key)
                || !owner.equals(type.homes().get(key.shardId()))) {
            return false;
        }
        Set<Member> regions = new TreeSet<>(type.regions().keySet());
        regions.addAll(type.proxies());
        regions.retainAll(t.view);
        HandOff h = new HandOff(owner, target, List.copyOf(regions), t.now);
        t.handoffs.put(key, h);
        if (round != null) {
            h.round = round;
            round.left(owner);
        }
        log.debug("Handing off shard {} of {} from {} (regions {})", key.shardId(), key.typeName(), owner, regions);
        send(key, h);
        return true;
    }

    private void send(ShardKey key, HandOff h) {
        for (Member r : h.regions) {
            t.send(r, new BeginHandOff(key.typeName(), key.shardId(), h.owner));
        }
        t.send(h.owner, new dev.sharding.internal.protocol.HandOff(key.typeName(), key.shardId(), h.regions));
    }

    /** A region started a shard: if its member is leaving meanwhile, the shard moves on at once. */
    void started(Member from, ShardKey key) {
        if (allocator.started(from, key) && t.leaving.contains(from)) {
            start(key, from, null);
        }
    }

    /**
     * The owner stopped a shard, with the stored state of the entities it stopped.
     *
     * @return whether it completed a handoff started here (a rebalance may go on)
     */
    boolean stopped(Member from, ShardStopped m) {
        ShardKey key = new ShardKey(m.typeName(), m.shardId());
        HandOff h = t.handoffs.get(key);
        if (h != null && h.owner.equals(from)) {
            t.handoffs.remove(key);
            if (from.equals(t.state.home(m.typeName(), m.shardId()))) {
                t.state.apply(new ShardTable.ShardDeallocated(m.typeName(), m.shardId()));
            }
            t.epochs.remove(key);
            reallocate(key, h, Set.of(), m.transfer(), m.epoch());
            return true;
        }
        if (from.equals(t.state.home(m.typeName(), m.shardId()))) {
            // a handoff the previous coordinator started completed
            t.state.apply(new ShardTable.ShardDeallocated(m.typeName(), m.shardId()));
            t.epochs.remove(key);
            Set<Member> requesters = t.waiting.remove(key);
            allocator.allocate(
                    key, requesters == null ? t.allRegions(m.typeName()) : requesters, null, m.transfer(), m.epoch());
        }
        return false;
    }

    /** Members left: a handoff whose owner is gone is complete (its shards are gone with it). */
    void ownersGone(Set<Member> gone) {
        List<ShardKey> orphaned = new ArrayList<>();
        t.handoffs.forEach((key, h) -> {
            if (gone.contains(h.owner)) {
                orphaned.add(key);
            }
        });
        for (ShardKey key : orphaned) {
            HandOff h = Objects.requireNonNull(t.handoffs.remove(key));
            log.info(
                    "Owner {} of shard {} of {} left during its handoff; allocating it anew",
                    h.owner,
                    key.shardId(),
                    key.typeName());
            reallocate(key, h, gone, List.of(), 0);
        }
    }

    /** Allocates a handed-off shard at once and tells every region of the type (they all buffer for it). */
    private void reallocate(
            ShardKey key, HandOff h, Set<Member> gone, List<EntityTransfer> transfer, long transferEpoch) {
        Set<Member> requesters = new LinkedHashSet<>(h.regions);
        requesters.addAll(h.requesters);
        requesters.addAll(t.allRegions(key.typeName()));
        requesters.removeAll(gone);
        requesters.retainAll(t.view);
        Member target = h.target != null && !gone.contains(h.target) ? h.target : null;
        allocator.allocate(key, requesters, target, transfer, transferEpoch);
        if (h.round != null) {
            CoordinatorTables.Allocation placed = t.inProgress.get(key);
            Member home = placed != null ? placed.member : t.state.home(key.typeName(), key.shardId());
            if (home != null) {
                h.round.arrived(home);
            }
        }
    }

    /** A member is leaving: hand off all its shards and give it no new ones. */
    void leaving(Member from) {
        if (t.leaving.add(from)) {
            log.info("Member {} is leaving; handing off its shards", from);
        }
        t.state
                .types()
                .forEach((typeName, type) -> type.homes().forEach((shard, home) -> {
                    if (home.equals(from)) {
                        start(new ShardKey(typeName, shard), from, null);
                    }
                }));
    }

    /** BeginHandOff and HandOff are idempotent: repeated when the owner's answer is late (or was lost). */
    void repeat() {
        t.handoffs.forEach((key, h) -> {
            if (t.now - h.sentNanos >= retryIntervalNanos) {
                h.sentNanos = t.now;
                send(key, h);
            }
        });
    }

    /** One rebalance round over every type, a rebalance of its own; returns how many shards it started moving. */
    int rebalanceRound() {
        return rebalanceRound(false);
    }

    /**
     * One rebalance round over every type; returns how many shards it started moving. A round that follows at once
     * on one that moved something ({@code continuing}) is the next step of the same rebalance: its moves count in that
     * rebalance's entry of the history, as an operator would count them, not as a rebalance of their own.
     */
    private int rebalanceRound(boolean continuing) {
        int moved = 0;
        RebalanceHistory.Round round = null;
        pausedByVersions = false;
        for (Map.Entry<String, ShardTable.TypeTable> e : new TreeMap<>(t.state.types()).entrySet()) {
            String typeName = e.getKey();
            ShardTable.TypeTable type = e.getValue();
            Map<Member, Set<Integer>> candidates = Candidates.of(t, typeName, type);
            if (Candidates.mixedVersions(t, candidates)) {
                // a rolling update: shards move off old members as those leave, and only to the newest version
                log.debug("No rebalance of {}: its regions run different application versions", typeName);
                pausedByVersions = true;
                continue;
            }
            Set<Integer> moving = new HashSet<>();
            t.handoffs.keySet().stream()
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
                Member owner = type.homes().get(shard);
                if (owner != null) {
                    if (round == null) {
                        round = continuing ? t.rebalances.continueLatest(t.now) : t.rebalances.start(t.now);
                    }
                    start(new ShardKey(typeName, shard), owner, null, round);
                    moved++;
                }
            }
        }
        if (moved > 0 && round != null) {
            if (continuing) {
                log.info(
                        "Rebalance on {}: round {} moving {} more shards ({} in this rebalance)",
                        t.nodeName(),
                        round.rounds,
                        moved,
                        round.moved);
            } else {
                log.info("Rebalance on {}: round 1 moving {} shards", t.nodeName(), moved);
            }
        }
        t.rebalance.roundStarted(moved, t.now);
        return moved;
    }

    /** After a round that moved something, the next one starts as soon as its moves are done. */
    void maybeNextRound() {
        if (t.rebalance.nextRoundAtOnce(t.now, t.handoffs.isEmpty(), t.leaving.isEmpty())) {
            rebalanceRound(true);
        }
    }

    /** The periodic round, if the view has been stable for an interval and nothing moves. */
    void periodicRound() {
        if (t.rebalance.periodicRoundDue(t.now, t.handoffs.isEmpty(), t.leaving.isEmpty())) {
            rebalanceRound();
        }
    }

    /** An operator asks the ready coordinator for a rebalance round now, or for one shard to move. */
    void admin(Member from, AdminRequest m) {
        String typeName = m.typeName();
        String refusal = null;
        String done = null;
        if (typeName == null) {
            if (!t.handoffs.isEmpty()) {
                refusal = "A rebalance or handoff is already in progress: " + inProgress();
            } else {
                int moved = rebalanceRound();
                done = moved > 0
                        ? "Rebalance started: moving " + moved + " shards"
                        : pausedByVersions
                                ? "No shard moved: members run different application versions (a rolling update);"
                                        + " rebalancing resumes once all run one version"
                                : "Balanced: no shard to move";
            }
        } else {
            ShardMoveRequest move = ShardMoveRequest.judge(
                    t.state,
                    t.view,
                    t.leaving,
                    id -> t.handoffs.containsKey(new ShardKey(typeName, id)),
                    id -> t.inProgress.containsKey(new ShardKey(typeName, id)),
                    typeName,
                    m.shardId(),
                    m.targetNode());
            refusal = move.refusal();
            if (refusal == null) {
                start(new ShardKey(typeName, m.shardId()), Objects.requireNonNull(move.owner()), move.target());
                done = move.accepted(typeName, m.shardId());
            }
        }
        String answer = refusal != null ? refusal : Objects.requireNonNull(done);
        t.send(from, new AdminReply(m.requestId(), refusal == null, answer));
    }
}
