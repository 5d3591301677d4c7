package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.lease.LeaseKeeper;
import dev.sharding.internal.region.LocalRegions;
import dev.sharding.internal.region.Region;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control thread's periodic work, every {@link #PERIOD_MILLIS} (while the node is quiet, every
 * {@link #QUIET_PERIOD_MILLIS}: see {@link #quietPeriodMillis(long)}), in this order:
 *
 * <ol>
 * <li>advance the coarse clock that entities stamp their activity with;</li>
 * <li>renew and check leases ({@link LeaseKeeper#tick});</li>
 * <li>passivation: start an idle pass every quarter of the shortest idle timeout, stop entities over a region's
 * limit when asked, and go on with the idle pass within a budget, so a pass over millions of entities never holds
 * the thread for long;</li>
 * <li>time out asks whose reply is overdue;</li>
 * <li>repeat the registration until it is acknowledged, soon at first ({@link Membership#retryRegister});</li>
 * <li>every retry interval, repeat what is not acknowledged yet: the graceful-leave request, each
 * region's shard-home requests, handoff checks and remembered-entity flushes, and the coordinator's own retries.</li>
 * </ol>
 */
final class PeriodicTick {

    /** How often the tick runs. */
    static final long PERIOD_MILLIS = AskRegistry.TICK_NANOS / 1_000_000;

    /**
     * How often the tick runs while the node is quiet. A wake-up of the control thread costs 0.1 to 0.2 ms of CPU on
     * a small virtual machine whatever the tick does, so fifty a second were the largest part of an idle node's CPU.
     */
    static final long QUIET_PERIOD_MILLIS = 100;

    /** How long after a change of view, or of the coordinator, the tick stays at its period. */
    static final long STIRRED_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** How many entities an idle pass looks at per tick, over all regions. */
    private static final int IDLE_PASS_BUDGET = 20_000;

    private static final Logger log = LoggerFactory.getLogger(PeriodicTick.class);

    private final ShardingSettings settings;

    private final LocalRegions regions;

    private final LeaseKeeper leases;

    private final AskRegistry asks;

    private final Membership membership;

    private final GracefulLeave leave;

    private final CoordinatorDriver coordinator;

    private final BooleanSupplier running;

    /** A coarse clock for entity activity. */
    private volatile long clockMillis = System.currentTimeMillis();

    private long lastSweepMillis = System.currentTimeMillis();

    private volatile boolean sweepRequested;

    private long lastRetryNanos;

    /** The quiet period: {@link #QUIET_PERIOD_MILLIS} but in tests. */
    private volatile long quietPeriodMillis = QUIET_PERIOD_MILLIS;

    /** Where the tick runs, once started. */
    private @Nullable ControlLoop control;

    /** The next run, once started. Control thread. */
    private @Nullable ScheduledFuture<?> next;

    /** Whether the next run is a quiet period away, and a new ask runs it at once. Control thread. */
    private boolean quiet;

    /** What the next ask runs while the tick is quiet: {@link #wake}, made once. */
    private final Runnable wakeTask = this::wake;

    /** The view and coordinator of the last run, to see a change. Control thread. */
    private List<Member> lastView = List.of();

    private @Nullable Member lastCoordinator;

    /** When the view or the coordinator last changed (or the tick started). Control thread. */
    private long stirredAtNanos = System.nanoTime();

    /** When the daemon workers were last sent a keep-alive; 0 before the first. */
    private long lastKeepAliveNanos;

    /** How often the daemon workers are sent a keep-alive. */
    static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(10);

    PeriodicTick(
            ShardingSettings settings,
            LocalRegions regions,
            LeaseKeeper leases,
            AskRegistry asks,
            Membership membership,
            GracefulLeave leave,
            CoordinatorDriver coordinator,
            BooleanSupplier running) {
        this.settings = settings;
        this.regions = regions;
        this.leases = leases;
        this.asks = asks;
        this.membership = membership;
        this.leave = leave;
        this.coordinator = coordinator;
        this.running = running;
    }

    /** The coarse clock, advanced every tick. Any thread. */
    long clockMillis() {
        return clockMillis;
    }

    /** Starts the ticks on the control thread, the first one period from now. */
    void start(ControlLoop loop) {
        this.control = loop;
        loop.offer(() -> schedule(PERIOD_MILLIS));
    }

    /** Runs the tick, then schedules the next one, at the period or, while the node is quiet, at the quiet period. */
    private void runAndSchedule() {
        long delay = PERIOD_MILLIS;
        try {
            run();
            delay = nextDelayMillis(System.nanoTime());
        } catch (Throwable t) {
            log.error("Periodic task of {} failed", membership.nodeName(), t);
        } finally {
            schedule(delay);
        }
    }

    private void schedule(long delayMillis) {
        ControlLoop loop = control;
        if (loop != null) {
            next = loop.executor().schedule(this::runAndSchedule, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The delay until the next run: the quiet period when {@link #quietPeriodMillis(long)} allows one and no ask is
     * being timed (a new one then wakes the tick, {@link #wake}), else the period.
     */
    private long nextDelayMillis(long now) {
        long quietMillis = quietPeriodMillis(now);
        boolean wasQuiet = quiet;
        quiet = quietMillis > PERIOD_MILLIS && asks.idleWakingOnNext(wakeTask);
        if (wasQuiet && !quiet) {
            asks.stopWaking(); // woken by a view, not an ask: the next ask need not wake a tick at its period
        }
        return quiet ? quietMillis : PERIOD_MILLIS;
    }

    /**
     * How long the tick may sleep, judged from this node's state: {@link #PERIOD_MILLIS} unless the node is steady,
     * that is running, registered with a coordinator that is another node, in the same view and under the same
     * coordinator for {@link #STIRRED_NANOS}, not leaving, and with no idle pass or sweep under way; then the quiet
     * period, or a quarter of the shortest idle timeout if that is shorter (the entities' activity clock is advanced
     * by the tick, and must not lag behind their passivation by more than the passes already do). Whatever the tick
     * does is late by at most that much then: lease checks (serving is decided by each message against the clock,
     * not by the tick, and a member's lease is renewed by the coordinator's pings as they arrive), retries (every
     * retry interval, 1 s by default) and passivation. Asks are the caller's {@link #nextDelayMillis} to judge. The
     * coordinator always ticks at the period: it pings its members' leases and decides on time. Notes when the view
     * or the coordinator changed.
     */
    private long quietPeriodMillis(long now) {
        List<Member> view = membership.view();
        Member coordinatorNow = membership.coordinator();
        if (!view.equals(lastView) || !Objects.equals(coordinatorNow, lastCoordinator)) {
            lastView = view;
            lastCoordinator = coordinatorNow;
            stirredAtNanos = now;
        }
        boolean steady = running.getAsBoolean()
                && coordinatorNow != null
                && membership.registered()
                && !coordinator.isActive()
                && !leave.isLeaving()
                && now - stirredAtNanos >= STIRRED_NANOS
                && !sweepRequested;
        if (!steady) {
            return PERIOD_MILLIS;
        }
        for (Region<?> r : regions.all()) {
            if (r.passivation().idlePassRunning()) {
                return PERIOD_MILLIS;
            }
        }
        return Math.min(quietPeriodMillis, sweepIntervalMillis());
    }

    /**
     * A new ask while the tick sleeps for a quiet period: runs it now and at the period again, so that the ask's
     * timeout is swept on time. Any thread; only hands the control thread a task.
     */
    private void wake() {
        ControlLoop loop = control;
        if (loop != null) {
            loop.offer(this::runNowIfQuiet);
        }
    }

    /**
     * A view was installed: if the tick sleeps for a quiet period, it runs now, sees the change and keeps its period
     * for {@link #STIRRED_NANOS}. Control thread.
     */
    void viewChanged() {
        runNowIfQuiet();
    }

    private void runNowIfQuiet() {
        ScheduledFuture<?> pending = next;
        if (quiet && pending != null && pending.cancel(false)) {
            runAndSchedule();
        }
    }

    /** Whether the next run is a quiet period away. Control thread; for tests. */
    boolean quiet() {
        return quiet;
    }

    /** Another quiet period, for tests that must tell a tick woken early from one that came on time. Any thread. */
    void quietPeriodForTests(long millis) {
        quietPeriodMillis = millis;
    }

    /** Asks for a passivation sweep at the next tick (a region went over its limit of live entities). Any thread. */
    void requestSweep() {
        sweepRequested = true;
    }

    /** One run of the periodic work; never throws, so that no failure stops the ticks after it. */
    private void run() {
        try {
            long millis = System.currentTimeMillis();
            clockMillis = millis;
            if (running.getAsBoolean()) {
                leases.tick(System.nanoTime());
                passivate(millis);
            }
            asks.sweep();
            long now = System.nanoTime();
            if (running.getAsBoolean() && membership.coordinator() != null) {
                membership.retryRegister(now, settings.retryInterval().toNanos());
            }
            if (now - lastRetryNanos >= settings.retryInterval().toNanos()) {
                lastRetryNanos = now;
                retry();
            }
        } catch (Throwable t) {
            // never rethrown, an Error included: the executor would cancel every later tick in silence, and a node
            // with no tick renews no lease and never notices it lapsed, serving as a zombie
            log.error("Periodic task of {} failed", membership.nodeName(), t);
        }
    }

    private void passivate(long millis) {
        boolean newPass = millis - lastSweepMillis >= sweepIntervalMillis();
        if (newPass) {
            lastSweepMillis = millis;
            for (Region<?> r : regions.all()) {
                r.passivation().startIdlePass(millis);
            }
        }
        if (newPass || sweepRequested) {
            sweepRequested = false;
            shareTheLimit();
            for (Region<?> r : regions.all()) {
                r.passivation().passivateOverLimit();
            }
        }
        int budget = IDLE_PASS_BUDGET;
        for (Region<?> r : regions.all()) {
            budget -= r.passivation().continueIdlePass(Math.max(0, budget));
        }
    }

    /**
     * Divides the node's {@code passivation.active-entity-limit} evenly over the hosting regions whose strategy has a
     * limit and that have none of their own (as strategies and limits change at runtime, on every sweep).
     */
    private void shareTheLimit() {
        int limited = 0;
        for (Region<?> r : regions.all()) {
            if (!r.proxyOnly() && r.passivation().sharesNodeLimit()) {
                limited++;
            }
        }
        int share = Math.max(1, settings.passivation().activeEntityLimit() / Math.max(1, limited));
        for (Region<?> r : regions.all()) {
            r.passivation().share(share);
        }
    }

    /**
     * Sends every worker of the node's daemon processes a keep-alive, so that each starts soon after the cluster forms
     * (then, remembered, each starts again wherever its shard goes): at the first retry once registered, then every
     * {@link #KEEP_ALIVE_NANOS}. Not while the node does not serve (its side lost, it was refused for good): the tells
     * would be refused; nor are they counted as sent when one is refused (the node stopped serving, a buffer was full):
     * the next retry sends them all again. A refusal never ends the retry's other work.
     */
    private void keepDaemonsAlive(long now) {
        if (!membership.registered()
                || leases.partitioned() != null
                || (lastKeepAliveNanos != 0 && now - lastKeepAliveNanos < KEEP_ALIVE_NANOS)) {
            return;
        }
        lastKeepAliveNanos = now;
        try {
            for (Region<?> r : regions.all()) {
                if (r.entityClass() == DaemonWorker.class) {
                    for (int i = 0; i < r.numberOfShards(); i++) {
                        r.tell(Integer.toString(i), DaemonWorker.KEEP_ALIVE);
                    }
                }
            }
        } catch (ShardingException e) {
            lastKeepAliveNanos = 0;
            log.debug(
                    "Daemon workers' keep-alive refused on {}; sent again at the next retry: {}",
                    membership.nodeName(),
                    e.toString());
        }
    }

    private void retry() {
        if (!running.getAsBoolean() || membership.coordinator() == null) {
            return;
        }
        keepDaemonsAlive(System.nanoTime());
        leave.retry();
        for (Region<?> r : regions.all()) {
            r.retryRequests();
            r.handOffs().check();
            r.flushRemembered(-1);
        }
        coordinator.tick();
    }

    /**
     * How often a pass looks for idle entities: a quarter of the shortest idle timeout, at least 50 ms, so an entity
     * stops between one and 1.25 idle timeouts after its last message.
     */
    private long sweepIntervalMillis() {
        long shortest = Long.MAX_VALUE;
        for (Region<?> r : regions.all()) {
            Duration idle = settings.idleTimeout(r.typeName());
            if (!idle.isZero()) {
                shortest = Math.min(shortest, idle.toMillis());
            }
        }
        return shortest == Long.MAX_VALUE ? 1000 : Math.max(50, shortest / 4);
    }
}
