package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.CoordinatorTables.Allocation;
import dev.sharding.internal.coordinator.CoordinatorTables.HandOff;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.spi.ShardAllocationStrategy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's allocation of shards: a shard with a home is answered at once; one without gets a hosting region
 * from the {@link ShardAllocationStrategy} (never a leaving member, only a leased one), a new epoch from the store, then
 * {@code HostShard}, and the regions that asked hear its home only once {@code ShardStarted} came back. A request that
 * cannot be decided now (not in charge, a fenced shard, no candidate) waits and is tried again; so does one that comes
 * while the table is rebuilt ({@link Rebuilding}).
 *
 * <p>Part of the coordinator's decision core: it only records effects in {@link CoordinatorTables}. Control thread only.
 */
final class ShardAllocator {

    private static final Logger log = LoggerFactory.getLogger(ShardAllocator.class);

    /** How long a shard waits for a winning set to confirm this side after a member left. */
    private static final long CONFIRMATION_RETRY_NANOS = 50_000_000L;

    private final CoordinatorTables t;

    private final ShardAllocationStrategy strategy;

    private final AllocationLeases leases;

    /** The lease keeper's answers the fences need. */
    private final ShardFences.Confirmation confirmation;

    private final long retryIntervalNanos;

    /** Types whose lack of any hosting region was logged, until one can host again. */
    private final Set<String> noHostLogged = new HashSet<>();

    /** Types whose allocation strategy threw, logged once until it places a shard of the type again. */
    private final Set<String> strategyFailureLogged = new HashSet<>();

    /** The wait for min-nr-of-members last logged, so that each count is logged once. */
    private @Nullable String loggedWait;

    ShardAllocator(
            CoordinatorTables tables,
            ShardAllocationStrategy strategy,
            AllocationLeases leases,
            long retryIntervalNanos) {
        this.t = tables;
        this.strategy = strategy;
        this.leases = leases;
        this.confirmation = new ShardFences.Confirmation() {
            @Override
            public boolean confirmedSince(long since, long now) {
                return leases.confirmedSince(since, now);
            }

            @Override
            public long confirmedActivationFence(long now) {
                return leases.confirmedActivationFence(now);
            }
        };
        this.retryIntervalNanos = retryIntervalNanos;
    }

    /**
     * Finds or makes a home for a shard and tells the requesters once it has one.
     *
     * @param preferredTarget the member to allocate to if it may take the shard (a handoff's target), or null; one
     *     given before to an allocation that had to wait is used when none is given
     * @param transfer the stored state of the shard's entities, from the owner that handed it off
     * @param transferEpoch the epoch that state was written under, or 0
     */
    void allocate(
            ShardKey key,
            Set<Member> requesters,
            @Nullable Member preferredTarget,
            List<EntityTransfer> transfer,
            long transferEpoch) {
        @Nullable Member preferred = preferredTarget;
        ShardTable.TypeTable type = t.state.type(key.typeName());
        if (type != null && (key.shardId() < 0 || key.shardId() >= type.numberOfShards())) {
            log.warn("Ignoring request for shard {} of {}: out of range", key.shardId(), key.typeName());
            return;
        }
        HandOff moving = t.handoffs.get(key);
        if (moving != null) {
            moving.requesters.addAll(requesters);
            return;
        }
        Member home = t.state.home(key.typeName(), key.shardId());
        if (home != null) {
            for (Member r : requesters) {
                t.send(r, new ShardHome(key.typeName(), key.shardId(), home));
            }
            return;
        }
        Allocation pending = t.inProgress.get(key);
        if (pending != null) {
            pending.requesters.addAll(requesters);
            return;
        }
        long now = t.now;
        if (preferred == null) {
            preferred = t.preferredTarget(key, now);
        }
        if (!leases.inCharge(now)) {
            // this side may not run, or has not heard from enough members yet: the requests wait
            await(key, requesters, preferred);
            return;
        }
        ShardFences.Verdict verdict = t.fences.check(key, now, confirmation);
        if (verdict == ShardFences.Verdict.WAIT_FOR_LEASES) {
            // a member that left may still serve the shard until its lease ends
            await(key, requesters, preferred);
            retryAt(t.fences.until());
            return;
        }
        if (verdict == ShardFences.Verdict.WAIT_FOR_CONFIRMATION) {
            // and this side must still run since it saw the member leave: a winning set confirmed it since
            await(key, requesters, preferred);
            retryAt(now + CONFIRMATION_RETRY_NANOS);
            return;
        }
        String wait = placementWait();
        if (wait != null) {
            await(key, requesters, preferred); // tried again when the next member registers
            if (!wait.equals(loggedWait)) {
                loggedWait = wait;
                log.info("Coordinator on {} is {}", t.nodeName(), wait);
            }
            return;
        }
        Map<Member, Set<Integer>> candidates = type == null ? Map.of() : Candidates.of(t, key.typeName(), type);
        // the newest version first: a new member not leased yet is waited for rather than passed over
        Candidates.keepNewestVersion(t, candidates);
        boolean preferredMayHost = preferred != null && candidates.containsKey(preferred);
        candidates.keySet().removeIf(m -> !leases.leased(m, now));
        if (preferredMayHost && !candidates.containsKey(preferred)) {
            // a handoff's target that holds no lease this instant (its renewal is late): wait for it a little, rather
            // than place the shard where the operator did not ask
            await(key, requesters, preferred);
            retryAt(now + CONFIRMATION_RETRY_NANOS);
            return;
        }
        if (candidates.isEmpty()) {
            await(key, requesters, preferred);
            if (type != null && type.regions().isEmpty() && noHostLogged.add(key.typeName())) {
                // every region of the type only routes: a typo in a role, or proxy-only everywhere
                log.warn(
                        "No member may host entity type {}: all {} of its regions route only (proxy-only, or the"
                                + " node lacks the type's role); its messages wait until one that may host it joins",
                        key.typeName(),
                        type.proxies().size());
            }
            return;
        }
        noHostLogged.remove(key.typeName());
        Member chosen;
        if (preferred != null && candidates.containsKey(preferred)) {
            chosen = preferred;
        } else {
            Member requester =
                    requesters.isEmpty() ? t.view.get(0) : requesters.iterator().next();
            try {
                chosen = strategy.allocate(requester, key.shardId(), candidates);
            } catch (RuntimeException e) {
                if (strategyFailureLogged.add(key.typeName())) {
                    log.error(
                            "Allocation strategy failed to place shard {} of {}; its shards wait, tried again every {}"
                                    + " ms (logged once until it places one)",
                            key.shardId(),
                            key.typeName(),
                            retryIntervalNanos / 1_000_000,
                            e);
                } else {
                    log.debug("Allocation strategy failed to place shard {} of {}", key.shardId(), key.typeName(), e);
                }
                await(key, requesters, preferred);
                retryAt(now + retryIntervalNanos);
                return;
            }
        }
        if (!candidates.containsKey(chosen)) {
            log.error(
                    "Allocation strategy chose {} for shard {} of {}, which cannot take it",
                    chosen,
                    key.shardId(),
                    key.typeName());
            await(key, requesters, preferred);
            return;
        }
        strategyFailureLogged.remove(key.typeName());
        Allocation allocation = t.newAllocation(chosen, requesters, transfer, transferEpoch);
        t.preferredTargets.remove(key);
        t.inProgress.put(key, allocation);
        requestEpoch(key, allocation);
    }

    /** Requests wait; a handoff's target is remembered with them, for a while, so that the retry places it there. */
    private void await(ShardKey key, Set<Member> requesters, @Nullable Member preferred) {
        t.await(key, requesters);
        if (preferred != null) {
            t.preferTarget(key, preferred, t.now);
        }
    }

    /**
     * Why no shard may be placed yet: fewer than {@code min-nr-of-members} members registered regions and hold a
     * lease (a member without a lease could not be given shards, and the first shards should spread over all).
     *
     * @return the reason, or {@code null} once placement started
     */
    @Nullable
    String placementWait() {
        return t.placementWait(m -> leases.leased(m, t.now));
    }

    private void requestEpoch(ShardKey key, Allocation allocation) {
        allocation.epochRequested = true;
        t.effect(new CoordinatorEffect.TakeEpoch(key, allocation.number));
    }

    /** The store gave an allocation its epoch: the chosen region is told to host the shard. */
    void epochTaken(ShardKey key, long allocationNumber, long epoch) {
        Allocation allocation = t.inProgress.get(key);
        if (allocation == null || allocation.number != allocationNumber) {
            return; // superseded: the member left, or the coordinator started again
        }
        allocation.epochRequested = false;
        allocation.epoch = epoch;
        sendHostShard(key, allocation);
    }

    /** The store could not give an epoch: the next tick asks again. */
    void epochFailed(ShardKey key, long allocationNumber, String failure) {
        Allocation allocation = t.inProgress.get(key);
        if (allocation == null || allocation.number != allocationNumber) {
            return;
        }
        allocation.epochRequested = false;
        if (allocation.epochFailures++ == 0) {
            log.warn(
                    "Cannot take a new epoch for shard {} of {} from the store; trying again until it can: {}",
                    key.shardId(),
                    key.typeName(),
                    failure);
        } else {
            log.debug(
                    "Cannot take a new epoch for shard {} of {} from the store (attempt {}): {}",
                    key.shardId(),
                    key.typeName(),
                    allocation.epochFailures,
                    failure);
        }
    }

    private void sendHostShard(ShardKey key, Allocation allocation) {
        allocation.sentNanos = t.now;
        t.send(
                allocation.member,
                new HostShard(
                        key.typeName(),
                        key.shardId(),
                        allocation.epoch,
                        allocation.transferEpoch,
                        allocation.transfer));
    }

    /**
     * A region started hosting a shard it was allocated: the shard has its home, and every region that asked hears it.
     *
     * @return whether it was the allocation under way (a duplicate or stray ShardStarted changes nothing)
     */
    boolean started(Member from, ShardKey key) {
        Allocation pending = t.inProgress.get(key);
        if (pending == null || !pending.member.equals(from)) {
            log.debug("Unexpected ShardStarted of {} {} from {}", key.typeName(), key.shardId(), from);
            return false;
        }
        t.inProgress.remove(key);
        t.state.apply(new ShardTable.ShardAllocated(key.typeName(), key.shardId(), from));
        t.epochs.put(key, pending.epoch);
        for (Member r : pending.requesters) {
            if (!r.equals(from)) {
                t.send(r, new ShardHome(key.typeName(), key.shardId(), from));
            }
        }
        return true;
    }

    /** The allocations under way: an epoch asked again if its request failed, HostShard repeated when unanswered. */
    void repeat() {
        t.inProgress.forEach((key, allocation) -> {
            if (allocation.epoch < 0) {
                if (!allocation.epochRequested) {
                    requestEpoch(key, allocation);
                }
            } else if (t.now - allocation.sentNanos >= retryIntervalNanos) {
                sendHostShard(key, allocation);
            }
        });
    }

    /** Asks for the remembered shards of every type that remembers, to allocate those without a home. */
    void allocateRemembered() {
        for (String typeName : List.copyOf(t.rememberTypes)) {
            t.effect(new CoordinatorEffect.ReadRemembered(typeName));
        }
    }

    /** The shards of a type with remembered entities: those with no home and no move under way are allocated. */
    void remembered(String typeName, Set<Integer> shards) {
        for (int shard : shards) {
            ShardKey key = new ShardKey(typeName, shard);
            if (t.state.home(typeName, shard) == null
                    && !t.inProgress.containsKey(key)
                    && !t.handoffs.containsKey(key)) {
                allocate(key, t.allRegions(typeName), null, List.of(), 0);
            }
        }
    }

    /** Tries the waiting requests again at a time (a fence ends then), unless an earlier retry is scheduled. */
    private void retryAt(long atNanos) {
        long now = t.now;
        if (t.retryAtNanos != Long.MIN_VALUE && t.retryAtNanos - now > 0 && t.retryAtNanos - atNanos <= 0) {
            return;
        }
        t.retryAtNanos = atNanos;
        t.effect(new CoordinatorEffect.RetryAt(atNanos));
    }

    /** A retry asked for by {@link CoordinatorEffect.RetryAt} is due: it is no longer scheduled. */
    void retryDue(long atNanos) {
        if (t.retryAtNanos == atNanos) {
            t.retryAtNanos = Long.MIN_VALUE;
        }
    }

    /** Tries every waiting request again (the table is whole: only {@link Active} does). */
    void retryWaiting() {
        if (t.waiting.isEmpty()) {
            return;
        }
        Map<ShardKey, Set<Member>> again = new HashMap<>(t.waiting);
        t.waiting.clear();
        again.forEach((key, requesters) -> {
            if (!requesters.isEmpty()) {
                allocate(key, requesters, null, List.of(), 0);
            }
        });
    }
}
