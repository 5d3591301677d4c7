package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The phases in which this node's coordinator is the active one, {@link Rebuilding} and {@link Active}: what both do
 * with a view, a member's report, a started shard, a leaving member and the store's epochs. What a view or a report
 * means beyond the table is each phase's own ({@link #viewChanged}, {@link #answered}). Control thread only.
 */
abstract sealed class Coordinating implements CoordinatorPhase permits Rebuilding, Active {

    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

    final Parts parts;

    final CoordinatorTables t;

    final ShardAllocator allocator;

    final HandOffOrchestrator handOffs;

    final TableRebuild rebuild;

    Coordinating(Parts parts) {
        this.parts = parts;
        this.t = parts.t();
        this.allocator = parts.allocator();
        this.handOffs = parts.handOffs();
        this.rebuild = parts.rebuild();
    }

    /** Another member became the oldest: everything under way is forgotten; otherwise the table follows the view. */
    @Override
    public final CoordinatorPhase onView(List<Member> members, Set<Member> gone, Set<Member> joined) {
        if (!t.coordinates(members)) {
            log.info("Coordinator on {} is no longer active", t.nodeName());
            t.clear();
            return new Inactive(parts);
        }
        rebuild.viewChanged(gone, joined);
        return viewChanged(gone);
    }

    /**
     * What a new view means beyond the table, which already follows it.
     *
     * @param gone the members that left
     * @return the phase after it
     */
    abstract CoordinatorPhase viewChanged(Set<Member> gone);

    @Override
    public final CoordinatorPhase onRegister(Member from, Register m) {
        int remembering = t.rememberTypes.size();
        return answered(from, rebuild.register(from, m.regions(), m.storeId(), m.profile()), remembering);
    }

    @Override
    public final CoordinatorPhase onShardStates(Member from, ShardStates m) {
        int remembering = t.rememberTypes.size();
        return answered(from, rebuild.regionStates(from, m.regions(), m.profile()), remembering);
    }

    /**
     * What a member's report means beyond the table, which already follows it.
     *
     * @param from the member
     * @param answer what became of its report
     * @param remembering how many types remembered their entities before it ({@link CoordinatorTables#rememberTypes})
     * @return the phase after it
     */
    abstract CoordinatorPhase answered(Member from, TableRebuild.Answer answer, int remembering);

    @Override
    public final CoordinatorPhase onShardStarted(Member from, ShardStarted m) {
        handOffs.started(from, new ShardKey(m.typeName(), m.shardId()));
        return this;
    }

    /** A member of the view is leaving: hand off all its shards and give it no new ones. */
    @Override
    public final CoordinatorPhase onGracefulShutdownRequest(Member from, GracefulShutdownRequest m) {
        if (t.view.contains(from)) {
            handOffs.leaving(from);
        }
        return this;
    }

    @Override
    public final CoordinatorPhase onEpochTaken(ShardKey shard, long allocation, long epoch) {
        allocator.epochTaken(shard, allocation, epoch);
        return this;
    }

    /** Asked again on the next tick. */
    @Override
    public final CoordinatorPhase onEpochFailed(ShardKey shard, long allocation, String failure) {
        allocator.epochFailed(shard, allocation, failure);
        return this;
    }

    /** Repeats the unanswered requests: {@code HostShard} and epochs, {@code BeginHandOff} and {@code HandOff}. */
    final void repeat() {
        allocator.repeat();
        handOffs.repeat();
    }
}
