package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.Coordinator;
import dev.sharding.internal.coordinator.CoordinatorEffect;
import dev.sharding.internal.coordinator.ShardKey;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.lease.LeaseListener;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.CoordinatorMessage;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import dev.sharding.spi.ShardingStore;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Coordinator}'s decisions on this node: feeds it the coordinator's messages, views and ticks with the
 * time they happen, and carries out the effects it returns: messages go out on the transport, epochs and remembered
 * shards are read from the store and their answers fed back on the control thread, retries are scheduled there.
 *
 * <p>Control thread only.
 */
final class CoordinatorDriver implements CoordinatorMessage.Handler, CoordinatorEffect.Handler, LeaseListener {

    private static final Logger log = LoggerFactory.getLogger(CoordinatorDriver.class);

    /** Added to a retry's delay so that it runs after the fence it waits for has ended. */
    private static final long RETRY_MARGIN_NANOS = 1_000_000L;

    private final Coordinator core;

    private final Outbound outbound;

    private final ShardingStore store;

    private final ScheduledExecutorService control;

    private final LeaseKeeper leases;

    /** Told after each event: a leaving node waits for its coordinator's moves ({@link #movesUnderWay}). */
    private final Runnable afterEvent;

    CoordinatorDriver(
            Coordinator core,
            Outbound outbound,
            ShardingStore store,
            ScheduledExecutorService control,
            LeaseKeeper leases,
            Runnable afterEvent) {
        this.afterEvent = afterEvent;
        this.core = core;
        this.outbound = outbound;
        this.store = store;
        this.control = control;
        this.leases = leases;
    }

    boolean isActive() {
        return core.isActive();
    }

    boolean isReady() {
        return core.isReady();
    }

    List<String> handoffsInProgress() {
        return core.handoffsInProgress();
    }

    /** What the active coordinator adds to this node's statistics, or nothing if it is not active. Control thread. */
    CoordinatorFigures figures() {
        if (!core.isActive()) {
            return CoordinatorFigures.NONE;
        }
        return new CoordinatorFigures(
                core.handoffsInProgress(), core.recentRebalances(System.nanoTime()), core.refusedMembers());
    }

    /** Whether the active coordinator on this node is moving shards. Control thread. */
    boolean movesUnderWay() {
        return core.movesUnderWay();
    }

    /** Why the active coordinator places no shard yet, or {@code null}. Control thread. */
    @Nullable
    String placementWait() {
        return core.placementWait();
    }

    // ---- events in ---------------------------------------------------------------------------------------------

    void onView(List<Member> members, Set<Member> gone, Set<Member> joined) {
        run(core.onView(members, gone, joined, System.nanoTime()));
    }

    void tick() {
        run(core.onTick(System.nanoTime()));
    }

    /** A member got its first lease, or this coordinator may run again: waiting requests are tried now. */
    @Override
    public void coordinatorMayRun() {
        run(core.onMayAllocate(System.nanoTime()));
    }

    /** Another cluster uses the store: the cluster's members are refused for good. */
    @Override
    public void storeUsedByAnotherCluster(String reason) {
        run(core.onStoreUsedByAnotherCluster(reason, System.nanoTime()));
    }

    @Override
    public void onRegister(Member from, Register m) {
        run(core.onRegister(from, m, System.nanoTime()));
    }

    @Override
    public void onShardStates(Member from, ShardStates m) {
        run(core.onShardStates(from, m, System.nanoTime()));
    }

    @Override
    public void onGetShardHome(Member from, GetShardHome m) {
        run(core.onGetShardHome(from, m, System.nanoTime()));
    }

    @Override
    public void onShardStarted(Member from, ShardStarted m) {
        run(core.onShardStarted(from, m, System.nanoTime()));
    }

    @Override
    public void onShardStopped(Member from, ShardStopped m) {
        run(core.onShardStopped(from, m, System.nanoTime()));
    }

    @Override
    public void onGracefulShutdownRequest(Member from, GracefulShutdownRequest m) {
        run(core.onGracefulShutdownRequest(from, m, System.nanoTime()));
    }

    @Override
    public void onAdminRequest(Member from, AdminRequest m) {
        run(core.onAdminRequest(from, m, System.nanoTime()));
    }

    // ---- effects out -------------------------------------------------------------------------------------------

    private void run(List<CoordinatorEffect> effects) {
        for (CoordinatorEffect e : effects) {
            e.applyTo(this);
        }
        afterEvent.run();
    }

    @Override
    public void send(Member to, ProtocolMessage message) {
        outbound.send(to, message, false);
    }

    @Override
    public void takeEpoch(ShardKey shard, long allocation) {
        store.nextEpoch(shard.typeName(), shard.shardId())
                .whenComplete((epoch, failure) -> control.execute(() -> {
                    long now = System.nanoTime();
                    run(
                            failure == null
                                    ? core.onEpochTaken(shard, allocation, epoch, now)
                                    : core.onEpochFailed(shard, allocation, failure.toString(), now));
                }));
    }

    @Override
    public void readRemembered(String typeName) {
        store.shardsWithRemembered(typeName)
                .whenComplete((shards, failure) -> control.execute(() -> {
                    if (failure != null) {
                        log.warn("Cannot read the remembered shards of {}: {}", typeName, failure.toString());
                    } else {
                        run(core.onRememberedShards(typeName, shards, System.nanoTime()));
                    }
                }));
    }

    @Override
    public void retryAt(long atNanos) {
        long delay = Math.max(0, atNanos - System.nanoTime()) + RETRY_MARGIN_NANOS;
        control.schedule(() -> run(core.onRetryDue(atNanos, System.nanoTime())), delay, TimeUnit.NANOSECONDS);
    }

    @Override
    public void pingLease(Member member) {
        leases.pingNow(member);
    }
}
