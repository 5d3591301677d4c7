package dev.sharding.bench.jmh;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.AllocationLeases;
import dev.sharding.internal.coordinator.Coordinator;
import dev.sharding.internal.coordinator.CoordinatorEffect;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import dev.sharding.spi.LeastShardAllocationStrategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The coordinator's work per shard allocation and per rebuild of its table, as the numbers of shards and of members
 * grow: its decision core ({@link Coordinator}, with its allocator and table rebuild) driven event by event as
 * {@code CoordinatorTest} drives it, over {@code members} fake members ({@code m0} the coordinator's own), one entity
 * type of {@code shards} shards, the default allocation strategy, a store that gives every epoch at once and leases
 * that allow everything. No network, store or clock: only the decisions, on the calling thread.
 *
 * <ul>
 *   <li>{@code reallocateOneShard} (average time): on a whole table (every shard allocated, spread evenly), the owner
 *       of the next shard (round robin) reports it stopped (as after a handoff the previous coordinator began) and the
 *       coordinator places it again: the table loses the shard, the strategy chooses a member, the epoch is taken,
 *       {@code HostShard} goes out, {@code ShardStarted} comes back and every region is told the new home. One
 *       deallocation and one allocation decision at a table of {@code shards} shards.
 *   <li>{@code allocateAllShards} (single shot): a table just rebuilt with every member reporting nothing (a cluster's
 *       first start), then one {@code GetShardHome} for each shard, each answered to the end as above: the time to
 *       place the whole table; divided by {@code shards}, the mean time of one allocation as the table fills.
 *   <li>{@code rebuildTable} (single shot): a coordinator just activated (a new view in which its member is the
 *       oldest) receives the {@code ShardStates} of every member, each hosting {@code shards / members} shards: the
 *       failover rebuild of the whole table, until the coordinator is ready.
 * </ul>
 *
 * <p>Constant work per allocation would show as the same {@code reallocateOneShard} score, and an {@code
 * allocateAllShards} score ten times as large, at 10,000 shards as at 1,000, whatever the members; a rebuild's work
 * should grow with the shards (each is reported once) and not with the members.
 *
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks-jmh.jar CoordinatorBenchmark                 # all 18, about 5 minutes
 * java -jar benchmarks/target/benchmarks-jmh.jar CoordinatorBenchmark.rebuildTable -p shards=10000 -p members=3
 * }</pre>
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Thread)
public class CoordinatorBenchmark {

    private static final String TYPE = "counter";

    private static final long NOW = 1_000_000_000_000L;

    private static final long SECOND = 1_000_000_000L;

    /** Shards of the entity type. */
    @Param({"1000", "10000"})
    public int shards;

    /** Members of the view, each with a hosting region of the type. */
    @Param({"3", "12", "48"})
    public int members;

    private List<Member> view = List.of();

    /** Each member's report: the shards {@code s} with {@code s % members} its index, epoch 1. */
    private ShardStates[] reports = new ShardStates[0];

    /** Each member's report with no shard. */
    private ShardStates[] empty = new ShardStates[0];

    private Coordinator coordinator = newCoordinator();

    private int next;

    private long epochs;

    /** Messages the coordinator decided to send: consumed so that no decision is optimised away. */
    private long sent;

    /** Makes the members and their reports. */
    @Setup(Level.Trial)
    public void reports() {
        List<Member> list = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            list.add(new Member(0, i + 1, "m" + i));
        }
        view = List.copyOf(list);
        reports = new ShardStates[members];
        empty = new ShardStates[members];
        for (int i = 0; i < members; i++) {
            int[] hosted = new int[(shards - i + members - 1) / members];
            for (int k = 0; k < hosted.length; k++) {
                hosted[k] = i + k * members;
            }
            long[] epoch = new long[hosted.length];
            Arrays.fill(epoch, 1L);
            reports[i] = states(hosted, epoch);
            empty[i] = states(new int[0], new long[0]);
        }
    }

    private ShardStates states(int[] hosted, long[] epoch) {
        return new ShardStates(
                List.of(new RegionInfo(TYPE, false, false, shards, hosted, epoch)), new MemberProfile("", List.of()));
    }

    /**
     * A new coordinator on {@code m0} for each iteration: just made for {@code rebuildTable}, ready with an empty table
     * for {@code allocateAllShards}, ready with the whole table for {@code reallocateOneShard}.
     *
     * @param params which benchmark runs
     */
    @Setup(Level.Iteration)
    public void coordinator(BenchmarkParams params) {
        coordinator = newCoordinator();
        next = 0;
        String benchmark = params.getBenchmark();
        if (benchmark.endsWith("rebuildTable")) {
            return;
        }
        drive(coordinator.onView(view, Set.of(), Set.copyOf(view), NOW));
        ShardStates[] those = benchmark.endsWith("allocateAllShards") ? empty : reports;
        for (int i = 0; i < members; i++) {
            drive(coordinator.onShardStates(view.get(i), those[i], NOW));
        }
        if (!coordinator.isReady()) {
            throw new IllegalStateException("The coordinator is not ready after every member reported");
        }
    }

    private Coordinator newCoordinator() {
        return new Coordinator(
                () -> view.isEmpty() ? null : view.get(0),
                () -> "m0",
                () -> "",
                new LeastShardAllocationStrategy(),
                new AllowAll(),
                10 * SECOND,
                SECOND,
                NOW);
    }

    /**
     * Places the next shard again, on a whole table.
     *
     * @return messages sent so far
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 3, time = 2)
    @Measurement(iterations = 5, time = 2)
    public long reallocateOneShard() {
        int shard = next;
        next = shard + 1 == shards ? 0 : shard + 1;
        Member home = Objects.requireNonNull(coordinator.state().home(TYPE, shard), "a whole table");
        drive(coordinator.onShardStopped(home, new ShardStopped(TYPE, shard, 0, List.of()), NOW));
        return sent;
    }

    /**
     * Places every shard of an empty table, one request each.
     *
     * @return the shards placed
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 2)
    @Measurement(iterations = 5)
    public int allocateAllShards() {
        for (int s = 0; s < shards; s++) {
            drive(coordinator.onGetShardHome(view.get(s % members), new GetShardHome(TYPE, s), NOW));
        }
        return Objects.requireNonNull(coordinator.state().type(TYPE)).homes().size();
    }

    /**
     * Rebuilds the whole table from every member's report.
     *
     * @return whether the coordinator is ready
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 2)
    @Measurement(iterations = 5)
    public boolean rebuildTable() {
        drive(coordinator.onView(view, Set.of(), Set.copyOf(view), NOW));
        for (int i = 0; i < members; i++) {
            drive(coordinator.onShardStates(view.get(i), reports[i], NOW));
        }
        return coordinator.isReady();
    }

    /** Carries out the effects as the node and the members would, at once: epochs given, shards started. */
    private void drive(List<CoordinatorEffect> effects) {
        for (CoordinatorEffect e : effects) {
            if (e instanceof CoordinatorEffect.TakeEpoch take) {
                drive(coordinator.onEpochTaken(take.shard(), take.allocation(), ++epochs, NOW));
            } else if (e instanceof CoordinatorEffect.Send send) {
                sent++;
                if (send.message() instanceof HostShard host) {
                    drive(coordinator.onShardStarted(
                            send.to(), new ShardStarted(host.typeName(), host.shardId()), NOW));
                }
            }
        }
    }

    /** Leases that allow everything: this side is in charge, every member holds a lease, nothing is fenced. */
    private static final class AllowAll implements AllocationLeases {

        @Override
        public boolean inCharge(long now) {
            return true;
        }

        @Override
        public long fenceFor(Member gone, long now) {
            return now;
        }

        @Override
        public boolean confirmedSince(long since, long now) {
            return true;
        }

        @Override
        public long activationFence(long now) {
            return now;
        }

        @Override
        public long confirmedActivationFence(long now) {
            return Long.MIN_VALUE;
        }

        @Override
        public long mergeFence(long now) {
            return now;
        }

        @Override
        public boolean leased(Member member, long now) {
            return true;
        }
    }
}
