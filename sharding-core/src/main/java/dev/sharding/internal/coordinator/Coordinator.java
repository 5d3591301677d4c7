package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.RebalanceReport;
import dev.sharding.internal.protocol.RefusedMember;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import dev.sharding.spi.ShardAllocationStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

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
 * hosting region has registered yet waits for one. No shard is placed before {@code min-nr-of-members} members have
 * registered regions (or a member reports a shard it hosts: the cluster had started), so that the first shards spread
 * over all of them. While members run different application versions (a rolling update), new shards go only to
 * the members of the newest version.
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
 * interval (no member joined or left), no member is leaving, nothing is moving, and the type's regions all run one
 * application version (during a rolling update each shard should move once, from an old node to a new one). When a round's moves are done and
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
 * The coordinator allocates only while {@link AllocationLeases#inCharge} says its side may run. A member that left the
 * view fences its shards until every lease it could hold has ended ({@link AllocationLeases#fenceFor}); a newly active
 * coordinator fences every shard no member reports for one lease duration. Requests for a fenced shard wait and are
 * tried again when the fence ends. Only members holding a lease are given shards.
 *
 * <p>Every request is idempotent and repeated until answered: regions repeat {@code Register} and
 * {@code GetShardHome} every retry interval, the coordinator repeats {@code GetShardStates}, {@code HostShard},
 * {@code BeginHandOff} and {@code HandOff}; a duplicate of any of them changes nothing.
 *
 * <h2>Phases</h2>
 * What an event means depends on the coordinator's {@link CoordinatorPhase}: {@link Inactive} while another node
 * coordinates, {@link Rebuilding} from activation until every member answered, {@link Active} once the table is whole.
 * Each phase owns the handlers that mean something in it and returns the phase after the event, so no handler asks
 * which phase it is in.
 *
 * <h2>A decision core</h2>
 * This class, its phases and its parts ({@link TableRebuild}, {@link ShardAllocator}, {@link HandOffOrchestrator},
 * sharing {@link CoordinatorTables}) only decide: each event (a message, a view, a tick, an answer from the store) goes in
 * with the time it happened, and what to do comes out as {@link CoordinatorEffect}s (messages to send, an epoch or the
 * remembered shards to read, a time to be woken, a lease to ping), which {@code CoordinatorDriver} carries out. The
 * decisions are thus tested over fake members, with no network, store or clock ({@code CoordinatorTest}).
 *
 * <p>Runs on the node's control thread only; nothing here blocks.
 */
public final class Coordinator {

    private final CoordinatorTables t;

    private final ShardAllocator allocator;

    private final HandOffOrchestrator handOffs;

    private final TableRebuild rebuild;

    /** What the coordinator is doing, which decides what each event means to it. */
    private CoordinatorPhase phase;

    /**
     * @param self this node's member, null before it joined
     * @param nodeName this node's name, for logs and replies
     * @param storeId the id of this node's store, empty if it is not shared (read after start)
     * @param strategy where shards go and which move
     * @param leases what the lease keeper says about members and this side
     * @param rebalanceIntervalNanos the rebalance interval
     * @param retryIntervalNanos how long an unanswered request waits before it is repeated
     * @param now the time now
     */
    public Coordinator(
            Supplier<@Nullable Member> self,
            Supplier<String> nodeName,
            Supplier<String> storeId,
            ShardAllocationStrategy strategy,
            AllocationLeases leases,
            long rebalanceIntervalNanos,
            long retryIntervalNanos,
            long now) {
        this(
                self,
                nodeName,
                storeId,
                strategy,
                leases,
                rebalanceIntervalNanos,
                rebalanceIntervalNanos,
                retryIntervalNanos,
                1,
                now);
    }

    /**
     * @param self this node's member, null before it joined
     * @param nodeName this node's name, for logs and replies
     * @param storeId the id of this node's store, empty if it is not shared (read after start)
     * @param strategy where shards go and which move
     * @param leases what the lease keeper says about members and this side
     * @param rebalanceIntervalNanos the rebalance interval
     * @param rebalanceStableAfterNanos how long the membership must be unchanged before a rebalance round
     * @param retryIntervalNanos how long an unanswered request waits before it is repeated
     * @param minNrOfMembers how many members must have registered regions before the first shard is placed
     * @param now the time now
     */
    public Coordinator(
            Supplier<@Nullable Member> self,
            Supplier<String> nodeName,
            Supplier<String> storeId,
            ShardAllocationStrategy strategy,
            AllocationLeases leases,
            long rebalanceIntervalNanos,
            long rebalanceStableAfterNanos,
            long retryIntervalNanos,
            int minNrOfMembers,
            long now) {
        this.t = new CoordinatorTables(
                self, nodeName, rebalanceIntervalNanos, rebalanceStableAfterNanos, minNrOfMembers, now);
        this.allocator = new ShardAllocator(t, strategy, leases, retryIntervalNanos);
        this.handOffs = new HandOffOrchestrator(t, allocator, strategy, retryIntervalNanos);
        this.rebuild = new TableRebuild(t, handOffs, leases, storeId);
        this.phase = new Inactive(new CoordinatorPhase.Parts(t, allocator, handOffs, rebuild));
    }

    /**
     * Tells a listener of every rebalance round that starts moving shards (for the node's metrics).
     *
     * @param listener called on the control thread
     */
    public void onRebalanceRound(Runnable listener) {
        t.rebalances.onStart(listener);
    }

    /** Whether this node's coordinator is the active one (rebuilding its table, or ready). */
    public boolean isActive() {
        return phase instanceof Coordinating;
    }

    /** Whether this node's coordinator is the active one and its table is whole. */
    public boolean isReady() {
        return phase instanceof Active;
    }

    public ShardTable state() {
        return t.state;
    }

    /** Why this coordinator places no shard yet (too few members), or {@code null}. */
    public @Nullable String placementWait() {
        return phase instanceof Coordinating ? allocator.placementWait() : null;
    }

    /**
     * Whether this active coordinator is moving shards: handoffs, or allocations waiting for their epoch or for
     * {@code ShardStarted}. Its node waits for them before it leaves, so that the shards it handed off have their new
     * homes before the next coordinator takes over.
     */
    public boolean movesUnderWay() {
        return phase instanceof Coordinating && (!t.inProgress.isEmpty() || !t.handoffs.isEmpty());
    }

    /** Shards being handed off now, as "type/shard". */
    public List<String> handoffsInProgress() {
        return handOffs.inProgress();
    }

    /**
     * The recent rebalances that moved shards, newest first (at most {@value RebalanceHistory#CAPACITY}).
     *
     * @param now the time now, to give each one's age
     * @return the rebalances
     */
    public List<RebalanceReport> recentRebalances(long now) {
        return t.rebalances.report(now);
    }

    /**
     * The members of the view this coordinator refused for good, with why, in the order they were refused.
     *
     * @return the members
     */
    public List<RefusedMember> refusedMembers() {
        List<RefusedMember> list = new ArrayList<>(t.refused.size());
        t.refused.forEach((member, reason) -> list.add(new RefusedMember(member, reason)));
        return list;
    }

    // ---- events: each is decided by the phase, which may move on -------------------------------------------------

    /** A new view: this node's coordinator becomes active, stays active or stops being active. */
    public List<CoordinatorEffect> onView(List<Member> members, Set<Member> gone, Set<Member> joined, long now) {
        t.begin(now);
        t.view = members;
        t.refused.keySet().removeAll(gone);
        if (!gone.isEmpty() || !joined.isEmpty()) {
            t.membershipChanged();
        }
        phase = phase.onView(members, gone, joined);
        return t.effects();
    }

    /** A member registers its regions. */
    public List<CoordinatorEffect> onRegister(Member from, Register m, long now) {
        t.begin(now);
        phase = phase.onRegister(from, m);
        return t.effects();
    }

    /** A member reports its regions and shards, asked by {@code GetShardStates}. */
    public List<CoordinatorEffect> onShardStates(Member from, ShardStates m, long now) {
        t.begin(now);
        phase = phase.onShardStates(from, m);
        return t.effects();
    }

    /** A region asks where a shard lives. */
    public List<CoordinatorEffect> onGetShardHome(Member from, GetShardHome m, long now) {
        t.begin(now);
        phase = phase.onGetShardHome(from, m);
        return t.effects();
    }

    /** A region started hosting a shard. */
    public List<CoordinatorEffect> onShardStarted(Member from, ShardStarted m, long now) {
        t.begin(now);
        phase = phase.onShardStarted(from, m);
        return t.effects();
    }

    /** The owner stopped a shard (a handoff), with the stored state of its entities. */
    public List<CoordinatorEffect> onShardStopped(Member from, ShardStopped m, long now) {
        t.begin(now);
        phase = phase.onShardStopped(from, m);
        return t.effects();
    }

    /** A member is leaving: hand off all its shards and give it no new ones. */
    public List<CoordinatorEffect> onGracefulShutdownRequest(Member from, GracefulShutdownRequest m, long now) {
        t.begin(now);
        phase = phase.onGracefulShutdownRequest(from, m);
        return t.effects();
    }

    /** An operator asks for a rebalance round now, or for one shard to move. */
    public List<CoordinatorEffect> onAdminRequest(Member from, AdminRequest m, long now) {
        t.begin(now);
        phase = phase.onAdminRequest(from, m);
        return t.effects();
    }

    /** The store gave an allocation its epoch ({@link CoordinatorEffect.TakeEpoch}). */
    public List<CoordinatorEffect> onEpochTaken(ShardKey shard, long allocation, long epoch, long now) {
        t.begin(now);
        phase = phase.onEpochTaken(shard, allocation, epoch);
        return t.effects();
    }

    /** The store failed to give an allocation its epoch: asked again on the next tick. */
    public List<CoordinatorEffect> onEpochFailed(ShardKey shard, long allocation, String failure, long now) {
        t.begin(now);
        phase = phase.onEpochFailed(shard, allocation, failure);
        return t.effects();
    }

    /** The shards of a type with remembered entities ({@link CoordinatorEffect.ReadRemembered}). */
    public List<CoordinatorEffect> onRememberedShards(String typeName, Set<Integer> shards, long now) {
        t.begin(now);
        phase = phase.onRememberedShards(typeName, shards);
        return t.effects();
    }

    /** A retry asked for by {@link CoordinatorEffect.RetryAt} is due. */
    public List<CoordinatorEffect> onRetryDue(long atNanos, long now) {
        t.begin(now);
        allocator.retryDue(atNanos); // no longer scheduled, whatever the phase
        phase = phase.onRetryDue();
        return t.effects();
    }

    /** A member got its first lease, or this coordinator may run again: waiting requests are tried now. */
    public List<CoordinatorEffect> onMayAllocate(long now) {
        t.begin(now);
        phase = phase.onMayAllocate();
        return t.effects();
    }

    /**
     * This node's lease keeper found another cluster holding the store's coordinator lease: every member of the view,
     * and every member that registers later, is refused for good (the coordinator allocates nothing meanwhile: the
     * lease keeper says it is not in charge).
     *
     * @param reason why, naming both clusters and what to do
     * @param now the time now
     * @return the effects
     */
    public List<CoordinatorEffect> onStoreUsedByAnotherCluster(String reason, long now) {
        t.begin(now);
        rebuild.storeUsedByAnotherCluster(reason);
        return t.effects();
    }

    /** Periodic: asks missing members again, repeats unanswered requests, rebalances. */
    public List<CoordinatorEffect> onTick(long now) {
        t.begin(now);
        phase = phase.onTick();
        return t.effects();
    }
}
