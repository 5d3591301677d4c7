package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.CoordinatorTables.Allocation;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.RegisterRefused;
import dev.sharding.internal.protocol.StopShard;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's table follows the members: on activation it starts empty and asks every member for its shards; it
 * is rebuilt from their reports ({@code Register}, {@code ShardStates}) until every member answered or left, and then
 * kept in step with them. A report decides by epochs when two members host one shard; a member that left takes its
 * shards with it, fenced until its lease has surely ended.
 *
 * <p>What a report or a view means beyond the table depends on the coordinator's phase, so each method only changes
 * the table and says what happened; {@link Rebuilding} and {@link Active} take it from there.
 *
 * <p>Part of the coordinator's decision core: it only records effects in {@link CoordinatorTables}. Control thread only.
 */
final class TableRebuild {

    /** What became of a member's report ({@code Register} or {@code ShardStates}). */
    enum Answer {
        /** Not from a member of the view: nothing changed, and the member has not answered. */
        IGNORED,
        /** Refused for good (another store, another number of shards): the member answered, and is not waited for. */
        REFUSED,
        /** Taken into the table. */
        TAKEN,
        /**
         * Taken, and a region new to the table hosts shards nobody held: its member comes from another part of a split
         * cluster, where leases may still cover shards nobody reports.
         */
        MERGING
    }

    private static final Logger log = LoggerFactory.getLogger(TableRebuild.class);

    private final CoordinatorTables t;

    private final HandOffOrchestrator handOffs;

    private final AllocationLeases leases;

    private final Supplier<String> storeId;

    TableRebuild(
            CoordinatorTables tables, HandOffOrchestrator handOffs, AllocationLeases leases, Supplier<String> storeId) {
        this.t = tables;
        this.handOffs = handOffs;
        this.leases = leases;
        this.storeId = storeId;
    }

    /** This node became the view's coordinator: start from an empty table and ask every member for its shards. */
    void activate(List<Member> members) {
        t.clear();
        t.fences.activated(leases.activationFence(t.now));
        log.info("Coordinator activated on {}; asking {} members for their shards", t.nodeName(), members.size());
        for (Member m : members) {
            t.send(m, new GetShardStates());
        }
    }

    /**
     * A new view on the active coordinator: members that left take their shards with them (fenced), their allocations
     * and handoffs under way are redone, new members are asked for their shards.
     */
    void viewChanged(Set<Member> gone, Set<Member> joined) {
        t.leaving.removeAll(gone);
        for (Member m : gone) {
            // its shards may still be served there until its lease has surely ended
            long fence = leases.fenceFor(m, t.now);
            t.state
                    .types()
                    .forEach((typeName, type) -> type.homes().forEach((shard, home) -> {
                        if (home.equals(m)) {
                            ShardKey key = new ShardKey(typeName, shard);
                            t.fences.memberLeft(key, fence, t.now);
                            t.epochs.remove(key);
                        }
                    }));
            t.inProgress.forEach((key, a) -> {
                if (a.member.equals(m)) {
                    t.fences.memberLeft(key, fence, t.now);
                }
            });
            t.state.apply(new ShardTable.MemberRemoved(m));
            t.profiles.remove(m);
        }
        for (Member m : joined) {
            t.send(m, new GetShardStates());
        }
        if (!gone.isEmpty()) {
            List<ShardKey> redo = new ArrayList<>();
            t.inProgress.forEach((key, a) -> {
                if (gone.contains(a.member)) {
                    redo.add(key);
                }
            });
            for (ShardKey key : redo) {
                Allocation a = java.util.Objects.requireNonNull(t.inProgress.remove(key));
                Set<Member> requesters = new LinkedHashSet<>(a.requesters);
                requesters.removeAll(gone);
                t.await(key, requesters);
            }
            // the owner crashed or left mid-handoff: its shards are gone, so the handoff is complete
            handOffs.ownersGone(gone);
            for (Set<Member> requesters : t.waiting.values()) {
                requesters.removeAll(gone);
            }
        }
    }

    /** A member left before it reported its shards: shards nobody reports wait until its last lease has ended. */
    void leftUnreported(Member m) {
        t.fences.merged(leases.fenceFor(m, t.now));
    }

    /**
     * A member registers its regions: refused for good if it does not share the store or the number of shards, or if
     * another cluster uses the store.
     *
     * @return what became of the registration
     */
    Answer register(Member from, List<RegionInfo> regions, String memberStoreId, MemberProfile profile) {
        String storeRefusal = t.storeRefusal;
        if (storeRefusal != null) {
            return refuse(from, storeRefusal);
        }
        String own = storeId.get();
        if (!own.isEmpty() && !memberStoreId.equals(own)) {
            refuse(
                    from,
                    "node " + from + " uses another store (id "
                            + (memberStoreId.isEmpty() ? "none: not shared" : memberStoreId)
                            + ") than the cluster's coordinator " + t.nodeName() + " (id " + own + "); every "
                            + "node of a cluster must use one shared database (sharding.store, spring.datasource.url)");
            return Answer.REFUSED;
        }
        boolean first = !t.profiles.containsKey(from);
        Answer answer = regionStates(from, regions, profile);
        if (answer == Answer.TAKEN || answer == Answer.MERGING) {
            t.refused.remove(from);
        }
        if (first && t.profiles.containsKey(from)) {
            // a member with regions has come: rebalance once the membership is stable again
            t.membershipChanged();
        }
        t.effect(new CoordinatorEffect.PingLease(from));
        return answer;
    }

    /**
     * Another cluster uses the store: every member of the view, this node's too, is refused for good now, and every
     * member that registers later.
     *
     * @param reason why, naming both clusters
     */
    void storeUsedByAnotherCluster(String reason) {
        t.storeRefusal = reason;
        for (Member m : t.view) {
            refuse(m, reason);
        }
    }

    /** Tells a member it is refused for good; returns {@link Answer#REFUSED}. */
    private Answer refuse(Member from, String reason) {
        t.refused.keySet().retainAll(t.view);
        if (t.refused.put(from, reason) == null) {
            log.error("Refused {} (logged once; it asks again every retry interval): {}", from, reason);
        } else {
            log.debug("Refused {} again: {}", from, reason);
        }
        t.send(from, new RegisterRefused(reason));
        return Answer.REFUSED;
    }

    /**
     * A member reported its regions and every shard they host, with epochs (Register or ShardStates). The table
     * follows the report: a shard it hosts and nobody else does is its; a shard two members host stays with the newer
     * epoch, and the other copy is stopped; a shard the table gave it and it no longer hosts has no home any more.
     *
     * @return what became of the report
     */
    Answer regionStates(Member from, List<RegionInfo> regions, MemberProfile profile) {
        if (!t.view.contains(from)) {
            log.debug("Ignoring regions of {}: not in the view", from);
            return Answer.IGNORED;
        }
        for (RegionInfo r : regions) {
            ShardTable.TypeTable type = t.state.type(r.typeName());
            if (type != null && type.numberOfShards() != r.numberOfShards()) {
                return refuse(
                        from,
                        "node " + from + " runs entity type " + r.typeName() + " with " + r.numberOfShards()
                                + " shards, but the cluster uses " + type.numberOfShards()
                                + "; number-of-shards must be equal on every node");
            }
        }
        if (!regions.isEmpty()) {
            // a probe reports no region: it neither counts towards min-nr-of-members nor has a version
            t.profiles.put(from, profile);
        }
        for (RegionInfo r : regions) {
            if (r.hostedShards().length > 0) {
                t.placementStarted = true; // shards were placed before: the cluster has started
            }
        }
        Answer answer = Answer.TAKEN;
        for (RegionInfo r : regions) {
            if (r.rememberEntities()) {
                t.rememberTypes.add(r.typeName());
            }
            ShardTable.TypeTable type = t.state.type(r.typeName());
            boolean known = type != null
                    && (type.regions().containsKey(from) || type.proxies().contains(from));
            if (!known) {
                try {
                    t.state.apply(
                            new ShardTable.RegionRegistered(from, r.typeName(), r.numberOfShards(), r.proxyOnly()));
                } catch (IllegalStateException e) {
                    log.error("Cannot register region of {} on {}: {}", r.typeName(), from, e.getMessage());
                    continue;
                }
            }
            if (reconcile(from, r) && !known) {
                answer = Answer.MERGING;
            }
        }
        t.send(from, new RegisterAck());
        return answer;
    }

    /**
     * Members of another part of a split cluster joined with shards: shards nobody reports wait until leases granted
     * there have surely ended.
     */
    void merged() {
        t.fences.merged(leases.mergeFence(t.now));
    }

    /**
     * Brings the table in step with a region's report.
     *
     * @return whether the region brought shards nobody held
     */
    private boolean reconcile(Member from, RegionInfo r) {
        boolean adopted = false;
        Set<Integer> reported = new HashSet<>();
        // the shards nobody holds, taken into the table in one change rather than one copy of it each
        List<ShardTable.Event> adoptions = new ArrayList<>();
        for (int i = 0; i < r.hostedShards().length; i++) {
            int shard = r.hostedShards()[i];
            long epoch = r.hostedEpochs()[i];
            if (shard < 0 || shard >= r.numberOfShards()) {
                log.warn(
                        "Member {} reports shard {} of {}, which has {} shards: ignored",
                        from,
                        shard,
                        r.typeName(),
                        r.numberOfShards());
                continue;
            }
            if (!reported.add(shard)) {
                continue; // listed twice: the first counts
            }
            ShardKey key = new ShardKey(r.typeName(), shard);
            Member home = t.state.home(r.typeName(), shard);
            Allocation pending = t.inProgress.get(key);
            if (home == null && pending != null) {
                if (pending.member.equals(from) && pending.epoch == epoch) {
                    handOffs.started(from, key);
                } else if (pending.epoch < 0 || epoch < pending.epoch) {
                    stop(from, key, epoch, "an allocation of it is under way");
                }
            } else if (home == null) {
                adoptions.add(new ShardTable.ShardAllocated(r.typeName(), shard, from));
                t.epochs.put(key, epoch);
                t.fences.reported(key);
                adopted = true;
            } else if (home.equals(from)) {
                t.epochs.merge(key, epoch, Math::max);
            } else {
                long current = t.epochs.getOrDefault(key, 0L);
                if (epoch > current) {
                    stop(home, key, current, "member " + from + " hosts epoch " + epoch);
                    t.state.apply(new ShardTable.ShardDeallocated(r.typeName(), shard));
                    t.state.apply(new ShardTable.ShardAllocated(r.typeName(), shard, from));
                    t.epochs.put(key, epoch);
                } else {
                    stop(from, key, epoch, "member " + home + " hosts epoch " + current);
                }
            }
        }
        t.state.applyAll(adoptions);
        ShardTable.TypeTable type = t.state.type(r.typeName());
        if (type == null) {
            return adopted;
        }
        List<Integer> lost = new ArrayList<>();
        type.homes().forEach((shard, home) -> {
            ShardKey key = new ShardKey(r.typeName(), shard);
            if (home.equals(from) && !reported.contains(shard) && !t.handoffs.containsKey(key)) {
                lost.add(shard);
            }
        });
        for (int shard : lost) {
            log.info(
                    "Member {} no longer hosts shard {} of {}; it has no home until asked for",
                    from,
                    shard,
                    r.typeName());
            t.state.apply(new ShardTable.ShardDeallocated(r.typeName(), shard));
            t.epochs.remove(new ShardKey(r.typeName(), shard));
        }
        return adopted;
    }

    private void stop(Member holder, ShardKey key, long epoch, String why) {
        log.warn(
                "Shard {} of {} is hosted twice; stopping the copy of epoch {} on {}: {}",
                key.shardId(),
                key.typeName(),
                epoch,
                holder,
                why);
        t.send(holder, new StopShard(key.typeName(), key.shardId(), epoch));
    }
}
