package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import java.util.List;
import java.util.Set;

/**
 * What the coordinator is doing, which decides what each event means to it:
 *
 * <pre>
 *            this node's member becomes the oldest             every member of the view answered or left
 * Inactive ──────────────────────────────────────▶ Rebuilding ──────────────────────────────────────────▶ Active
 *    ▲                                                  │                                                    │
 *    └──────────────── another member is the oldest ────┴────────────────────────────────────────────────────┘
 * </pre>
 *
 * <ul>
 * <li>{@link Inactive}: another node coordinates. Only a view that makes this node the coordinator means something;
 * an operator's request is answered with a refusal.</li>
 * <li>{@link Rebuilding}: active, the table being rebuilt from the members' reports. Reports, handoffs already under
 * way and leaving members are followed; shard-home requests wait, nothing is rebalanced.</li>
 * <li>{@link Active}: the table is whole. Shards are placed, waiting requests tried, rounds rebalanced, an operator's
 * requests carried out.</li>
 * </ul>
 *
 * <p>Fences and lease confirmations are not phases: they hold single shards (or every shard no member reports) for a
 * time within {@link Active}, and {@link ShardFences} judges each shard when it is asked for.
 *
 * <p>Each handler records the event's effects in {@link CoordinatorTables} and returns the phase after it (this one,
 * unless the event moved the coordinator on). An event that means nothing in a phase is ignored there: the default
 * handlers below decide nothing and keep the phase; a phase overrides the ones it acts on.
 *
 * <p>Control thread only.
 */
sealed interface CoordinatorPhase permits Inactive, Coordinating {

    /** The coordinator's tables and parts that every phase decides with. */
    record Parts(CoordinatorTables t, ShardAllocator allocator, HandOffOrchestrator handOffs, TableRebuild rebuild) {}

    /**
     * A new view, already in {@link CoordinatorTables#view}.
     *
     * @param members the members, oldest first
     * @param gone the members that left since the last view
     * @param joined the members that joined since the last view
     * @return the phase after it
     */
    CoordinatorPhase onView(List<Member> members, Set<Member> gone, Set<Member> joined);

    /** An operator asks for a rebalance round now, or for one shard to move: answered in every phase. */
    CoordinatorPhase onAdminRequest(Member from, AdminRequest m);

    /** A member registers its regions. */
    default CoordinatorPhase onRegister(Member from, Register m) {
        return this; // another node coordinates: the member registers with it
    }

    /** A member reports its regions and shards, asked by {@code GetShardStates}. */
    default CoordinatorPhase onShardStates(Member from, ShardStates m) {
        return this; // the member retries with whoever is the coordinator
    }

    /** A region asks where a shard lives. */
    default CoordinatorPhase onGetShardHome(Member from, GetShardHome m) {
        return this;
    }

    /** A region started hosting a shard. */
    default CoordinatorPhase onShardStarted(Member from, ShardStarted m) {
        return this;
    }

    /** The owner stopped a shard (a handoff), with the stored state of its entities. */
    default CoordinatorPhase onShardStopped(Member from, ShardStopped m) {
        return this;
    }

    /** A member is leaving. */
    default CoordinatorPhase onGracefulShutdownRequest(Member from, GracefulShutdownRequest m) {
        return this;
    }

    /** The store gave an allocation its epoch. */
    default CoordinatorPhase onEpochTaken(ShardKey shard, long allocation, long epoch) {
        return this; // no allocation is under way: the answer is for one forgotten
    }

    /** The store failed to give an allocation its epoch. */
    default CoordinatorPhase onEpochFailed(ShardKey shard, long allocation, String failure) {
        return this;
    }

    /** The shards of a type with remembered entities. */
    default CoordinatorPhase onRememberedShards(String typeName, Set<Integer> shards) {
        return this;
    }

    /** A retry asked for by {@link CoordinatorEffect.RetryAt} is due. */
    default CoordinatorPhase onRetryDue() {
        return this;
    }

    /** A member got its first lease, or this coordinator may run again. */
    default CoordinatorPhase onMayAllocate() {
        return this;
    }

    /** Periodic. */
    default CoordinatorPhase onTick() {
        return this;
    }
}
