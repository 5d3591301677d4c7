package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.ShardStopped;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's phase once its table is whole: shards are placed when asked for (or remembered), waiting requests
 * are tried again whenever something they wait for may have changed, rebalance rounds run, an operator's requests are
 * carried out. Stays until another member becomes the oldest. Control thread only.
 */
final class Active extends Coordinating {

    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

    private Active(Parts parts) {
        super(parts);
    }

    /**
     * Every member answered or left: the table is whole. Remembered shards are read to be allocated, and the first
     * periodic rebalance round is one interval away.
     */
    static Active enter(Parts parts) {
        CoordinatorTables t = parts.t();
        t.rebalance.ready(t.now);
        log.info(
                "Coordinator on {} is ready: {} members, {} shards allocated",
                t.nodeName(),
                t.view.size(),
                t.state.types().values().stream()
                        .mapToInt(type -> type.homes().size())
                        .sum());
        parts.allocator().allocateRemembered();
        return new Active(parts);
    }

    /** Waiting requests may be placed now, the gone members' remembered entities start elsewhere, a round may go on. */
    @Override
    CoordinatorPhase viewChanged(Set<Member> gone) {
        allocator.retryWaiting();
        if (!gone.isEmpty()) {
            allocator.allocateRemembered();
        }
        handOffs.maybeNextRound();
        return this;
    }

    /**
     * A member from another part of a split cluster fences the shards nobody reports; a type that starts remembering
     * its entities has its remembered shards allocated; waiting requests may be placed now.
     */
    @Override
    CoordinatorPhase answered(Member from, TableRebuild.Answer answer, int remembering) {
        if (answer == TableRebuild.Answer.IGNORED || answer == TableRebuild.Answer.REFUSED) {
            return this;
        }
        if (answer == TableRebuild.Answer.MERGING) {
            rebuild.merged();
        }
        if (t.rememberTypes.size() > remembering) {
            allocator.allocateRemembered();
        }
        allocator.retryWaiting();
        return this;
    }

    @Override
    public CoordinatorPhase onGetShardHome(Member from, GetShardHome m) {
        allocator.allocate(new ShardKey(m.typeName(), m.shardId()), Set.of(from), null, List.of(), 0);
        return this;
    }

    /** The shard is allocated again at once; if it was a rebalance round's last move, the next round may start. */
    @Override
    public CoordinatorPhase onShardStopped(Member from, ShardStopped m) {
        if (handOffs.stopped(from, m)) {
            handOffs.maybeNextRound();
        }
        return this;
    }

    @Override
    public CoordinatorPhase onAdminRequest(Member from, AdminRequest m) {
        handOffs.admin(from, m);
        return this;
    }

    /** Those with no home and no move under way are allocated. */
    @Override
    public CoordinatorPhase onRememberedShards(String typeName, Set<Integer> shards) {
        allocator.remembered(typeName, shards);
        return this;
    }

    /** A fence may have ended, or the membership become stable: a round may be owed. */
    @Override
    public CoordinatorPhase onRetryDue() {
        allocator.retryWaiting();
        handOffs.periodicRound();
        return this;
    }

    @Override
    public CoordinatorPhase onMayAllocate() {
        allocator.retryWaiting();
        return this;
    }

    /** Repeats unanswered requests, tries waiting ones again, rebalances when a round is due. */
    @Override
    public CoordinatorPhase onTick() {
        repeat();
        allocator.retryWaiting();
        handOffs.periodicRound();
        return this;
    }
}
