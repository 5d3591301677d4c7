package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.BeginHandOff;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.GracefulShutdownRequest;
import dev.sharding.internal.protocol.HandOff;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.MemberProfile;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.RebalanceReport;
import dev.sharding.internal.protocol.RefusedMember;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.Register;
import dev.sharding.internal.protocol.RegisterAck;
import dev.sharding.internal.protocol.RegisterRefused;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.internal.protocol.ShardStarted;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import dev.sharding.internal.protocol.StopShard;
import dev.sharding.spi.LeastShardAllocationStrategy;
import dev.sharding.spi.ShardAllocationStrategy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's decisions, event by event, over fake members, a fake store and a hand-driven clock: no network, no
 * threads. Each test feeds messages as regions would send them (or fail to) and checks the messages the coordinator
 * decides to send.
 */
class CoordinatorTest {

    private static final Member A = new Member(0, 1, "a");

    private static final Member B = new Member(0, 2, "b");

    private static final Member C = new Member(0, 3, "c");

    private static final String TYPE = "account";

    private static final int SHARDS = 10;

    private static final long SECOND = 1_000_000_000L;

    private static final long RETRY = SECOND;

    private static final long REBALANCE = 10 * SECOND;

    private long now = 1_000 * SECOND;

    private final FakeLeases leases = new FakeLeases();

    private String storeId = "store-1";

    private Coordinator coordinator =
            new Coordinator(() -> A, () -> "a", () -> storeId, new RequesterFirst(), leases, REBALANCE, RETRY, now);

    /** Starts the test with a coordinator that waits for this many members before placing shards. */
    private void minNrOfMembers(int min) {
        coordinator = new Coordinator(
                () -> A, () -> "a", () -> storeId, new RequesterFirst(), leases, REBALANCE, REBALANCE, RETRY, min, now);
    }

    private static ShardStates states(String version, RegionInfo... regions) {
        return new ShardStates(List.of(regions), new MemberProfile(version, List.of()));
    }

    /** Messages decided, in order, until taken by a test. */
    private final List<Sent> sent = new ArrayList<>();

    private record Sent(Member to, ProtocolMessage message) {}

    /** Epoch requests the fake store has not answered yet (when it holds them back). */
    private final List<CoordinatorEffect.TakeEpoch> pendingEpochs = new ArrayList<>();

    private final List<CoordinatorEffect.RetryAt> retries = new ArrayList<>();

    private final Map<ShardKey, Long> storeEpochs = new HashMap<>();

    private final Map<String, Set<Integer>> rememberedShards = new HashMap<>();

    /** Whether the fake store answers epoch requests at once. */
    private boolean storeAnswers = true;

    /** Carries out effects as the node would: the store answers at once unless held back. */
    private void run(List<CoordinatorEffect> effects) {
        for (CoordinatorEffect e : effects) {
            if (e instanceof CoordinatorEffect.Send s) {
                sent.add(new Sent(s.to(), s.message()));
            } else if (e instanceof CoordinatorEffect.TakeEpoch te) {
                pendingEpochs.add(te);
            } else if (e instanceof CoordinatorEffect.ReadRemembered rr) {
                run(coordinator.onRememberedShards(
                        rr.typeName(), rememberedShards.getOrDefault(rr.typeName(), Set.of()), now));
            } else if (e instanceof CoordinatorEffect.RetryAt r) {
                retries.add(r);
            }
        }
        if (storeAnswers) {
            answerEpochs();
        }
    }

    private void answerEpochs() {
        List<CoordinatorEffect.TakeEpoch> todo = new ArrayList<>(pendingEpochs);
        pendingEpochs.clear();
        for (CoordinatorEffect.TakeEpoch te : todo) {
            long epoch = storeEpochs.merge(te.shard(), 1L, Long::sum);
            run(coordinator.onEpochTaken(te.shard(), te.allocation(), epoch, now));
        }
    }

    private <T extends ProtocolMessage> List<T> take(Member to, Class<T> type) {
        List<T> found = new ArrayList<>();
        sent.removeIf(s -> {
            if (s.to().equals(to) && type.isInstance(s.message())) {
                found.add(type.cast(s.message()));
                return true;
            }
            return false;
        });
        return found;
    }

    private <T extends ProtocolMessage> T one(Member to, Class<T> type) {
        List<T> found = take(to, type);
        assertThat(found).as("%s to %s", type.getSimpleName(), to).hasSize(1);
        return found.get(0);
    }

    private static RegionInfo region(int... hostedAndEpochs) {
        int[] shards = new int[hostedAndEpochs.length / 2];
        long[] epochs = new long[shards.length];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = hostedAndEpochs[2 * i];
            epochs[i] = hostedAndEpochs[2 * i + 1];
        }
        return new RegionInfo(TYPE, false, false, SHARDS, shards, epochs);
    }

    /** Activates the coordinator on A with the given members, each reporting no shard. */
    private void ready(Member... members) {
        run(coordinator.onView(List.of(members), Set.of(), Set.of(members), now));
        for (Member m : members) {
            run(coordinator.onShardStates(m, new ShardStates(List.of(region())), now));
        }
        assertThat(coordinator.isReady()).isTrue();
        sent.clear();
    }

    /** Allocates a shard on a member through the whole protocol (the member asks, and is chosen). */
    private void allocated(int shard, Member home) {
        requesterFirst = true;
        run(coordinator.onGetShardHome(home, new GetShardHome(TYPE, shard), now));
        requesterFirst = false;
        HostShard host = one(home, HostShard.class);
        assertThat(host.shardId()).isEqualTo(shard);
        run(coordinator.onShardStarted(home, new ShardStarted(TYPE, shard), now));
        assertThat(coordinator.state().home(TYPE, shard)).isEqualTo(home);
        sent.clear();
    }

    /** Whether the strategy gives a shard to the region that asked for it, rather than to the least loaded. */
    private boolean requesterFirst;

    /** Whether the strategy tries to change the table it is handed (a user's mistake). */
    private boolean strategyWritesToTable;

    /** The default strategy, or the requester when a test says so. */
    private final class RequesterFirst implements ShardAllocationStrategy {

        private final ShardAllocationStrategy least = new LeastShardAllocationStrategy();

        @Override
        public Member allocate(Member requester, int shardId, Map<Member, Set<Integer>> allocations) {
            if (strategyWritesToTable) {
                allocations.get(requester).add(shardId); // the table is a read-only view: this throws
            }
            return requesterFirst && allocations.containsKey(requester)
                    ? requester
                    : least.allocate(requester, shardId, allocations);
        }

        @Override
        public Set<Integer> rebalance(Map<Member, Set<Integer>> allocations, Set<Integer> inProgress) {
            return least.rebalance(allocations, inProgress);
        }
    }

    private void view(List<Member> members, Set<Member> gone, Set<Member> joined) {
        run(coordinator.onView(members, gone, joined, now));
    }

    // ---- failover rebuild ----------------------------------------------------------------------------------------

    @Test
    void activationAsksEveryMemberAndAnswersRequestsOnlyOnceAllReported() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        assertThat(coordinator.isActive()).isTrue();
        one(A, GetShardStates.class);
        one(B, GetShardStates.class);

        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 4), now));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        one(A, RegisterAck.class);
        assertThat(coordinator.isReady()).isFalse();
        assertThat(sent).isEmpty();

        run(coordinator.onShardStates(B, new ShardStates(List.of(region())), now));
        one(B, RegisterAck.class);
        assertThat(coordinator.isReady()).isTrue();
        // the waiting request is allocated now, to the region with fewest shards (A and B tie: the older)
        HostShard host = one(A, HostShard.class);
        assertThat(host.shardId()).isEqualTo(4);
        assertThat(host.epoch()).isEqualTo(1);
    }

    @Test
    void aMemberThatDoesNotAnswerIsAskedAgainEveryTickAndNotWaitedForOnceGone() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        sent.clear();

        run(coordinator.onTick(now));
        one(B, GetShardStates.class);
        assertThat(take(A, GetShardStates.class)).isEmpty();

        view(List.of(A), Set.of(B), Set.of());
        assertThat(coordinator.isReady()).isTrue();
    }

    @Test
    void aMemberGoneBeforeItReportedKeepsTheShardsNobodyReportsFencedUntilItsLeaseEnds() {
        leases.fence = 5 * SECOND;
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        // B held a lease from this coordinator but never said which shards it serves: shard 4 may be one
        view(List.of(A), Set.of(B), Set.of());
        assertThat(coordinator.isReady()).isTrue();
        retries.clear();

        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 4), now));
        assertThat(take(A, HostShard.class)).as("fenced").isEmpty();
        long at = retries.remove(0).atNanos();
        assertThat(at).isEqualTo(now + 5 * SECOND);
        now = at + 1;
        run(coordinator.onRetryDue(at, now));
        one(A, HostShard.class);
    }

    @Test
    void theRebuiltTableKeepsTheNewerEpochOfAShardReportedTwiceAndStopsTheOtherCopy() {
        view(List.of(A, B, C), Set.of(), Set.of(A, B, C));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region(3, 5, 6, 2))), now));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region(3, 7))), now));
        run(coordinator.onShardStates(C, new ShardStates(List.of(region(6, 1))), now));

        StopShard stopA = one(A, StopShard.class);
        assertThat(stopA).isEqualTo(new StopShard(TYPE, 3, 5));
        StopShard stopC = one(C, StopShard.class);
        assertThat(stopC).isEqualTo(new StopShard(TYPE, 6, 1));
        assertThat(coordinator.state().home(TYPE, 3)).isEqualTo(B);
        assertThat(coordinator.state().home(TYPE, 6)).isEqualTo(A);
        assertThat(take(B, StopShard.class)).isEmpty();
    }

    @Test
    void aReportWithAShardOutOfRangeOrListedTwiceHasTheRestTakenAndThoseIgnored() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region(1, 4, SHARDS, 4, -1, 4, 2, 4, 1, 9))), now));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region(3, 2))), now));

        assertThat(coordinator.state().home(TYPE, 1)).isEqualTo(A);
        assertThat(coordinator.state().home(TYPE, 2)).isEqualTo(A);
        assertThat(coordinator.state().home(TYPE, 3)).isEqualTo(B);
        assertThat(coordinator.state().type(TYPE).regions().get(A)).containsExactly(1, 2);
        assertThat(take(A, StopShard.class))
                .as("the second listing of shard 1 is not another copy")
                .isEmpty();
    }

    @Test
    void aShardItsMemberNoLongerReportsHasNoHomeUntilAskedFor() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region(2, 1))), now));
        assertThat(coordinator.state().home(TYPE, 2)).isEqualTo(B);

        // B dropped the shard on its own (fenced by the store) and reports again
        run(coordinator.onShardStates(B, new ShardStates(List.of(region())), now));
        assertThat(coordinator.state().home(TYPE, 2)).isNull();
    }

    @Test
    void aDuplicatedReportChangesNothing() {
        ready(A, B);
        allocated(1, A);
        run(coordinator.onShardStates(A, new ShardStates(List.of(region(1, 1))), now));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region(1, 1))), now));
        assertThat(coordinator.state().home(TYPE, 1)).isEqualTo(A);
        assertThat(take(A, StopShard.class)).isEmpty();
        assertThat(take(A, RegisterAck.class)).hasSize(2);
        assertThat(sent).isEmpty();
    }

    @Test
    void aMemberWithAnotherStoreOrNumberOfShardsIsRefusedAndNotWaitedFor() {
        view(List.of(A, B, C), Set.of(), Set.of(A, B, C));
        run(coordinator.onRegister(A, new Register(List.of(region()), "store-1"), now));
        run(coordinator.onRegister(B, new Register(List.of(region()), "store-2"), now));
        assertThat(one(B, RegisterRefused.class).reason()).contains("another store");
        run(coordinator.onRegister(
                C,
                new Register(List.of(new RegionInfo(TYPE, false, false, 20, new int[0], new long[0])), "store-1"),
                now));
        assertThat(one(C, RegisterRefused.class).reason()).contains("number-of-shards");
        assertThat(coordinator.isReady()).isTrue();
        assertThat(coordinator.state().type(TYPE).regions()).containsOnlyKeys(A);
    }

    /** The refused members are reported with why, for every node's view of the cluster, until they leave. */
    @Test
    void refusedMembersAreReportedWithWhyUntilTheyLeave() {
        view(List.of(A, B, C), Set.of(), Set.of(A, B, C));
        run(coordinator.onRegister(A, new Register(List.of(region()), "store-1"), now));
        run(coordinator.onRegister(B, new Register(List.of(region()), "store-2"), now));
        run(coordinator.onRegister(
                C,
                new Register(List.of(new RegionInfo(TYPE, false, false, 20, new int[0], new long[0])), "store-1"),
                now));
        assertThat(coordinator.refusedMembers())
                .extracting(RefusedMember::member)
                .containsExactly(B, C);
        assertThat(coordinator.refusedMembers().get(0).reason()).contains("another store");
        assertThat(coordinator.refusedMembers().get(1).reason()).contains("number-of-shards");

        view(List.of(A, B), Set.of(C), Set.of());
        assertThat(coordinator.refusedMembers())
                .extracting(RefusedMember::member)
                .containsExactly(B);
    }

    @Test
    void aRefusedMemberThatRegistersAgainIsRefusedEachTimeButLoggedOnce() {
        ch.qos.logback.classic.Logger logger =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(TableRebuild.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> log =
                new ch.qos.logback.core.read.ListAppender<>();
        log.start();
        logger.addAppender(log);
        try {
            view(List.of(A, C), Set.of(), Set.of(A, C));
            run(coordinator.onRegister(A, new Register(List.of(region()), "store-1"), now));
            for (int i = 0; i < 5; i++) { // a refused node registers again every retry interval
                run(coordinator.onRegister(
                        C,
                        new Register(
                                List.of(new RegionInfo(TYPE, false, false, 20, new int[0], new long[0])), "store-1"),
                        now));
                assertThat(one(C, RegisterRefused.class).reason()).contains("number-of-shards");
                now += RETRY;
            }
            assertThat(log.list)
                    .filteredOn(e -> e.getLevel() == ch.qos.logback.classic.Level.ERROR)
                    .hasSize(1);
        } finally {
            logger.detachAppender(log);
        }
    }

    @Test
    void losingTheCoordinatorRoleForgetsEverything() {
        ready(A, B);
        allocated(1, A);
        Member older = new Member(0, 0, "older");
        view(List.of(older, A, B), Set.of(), Set.of(older));
        assertThat(coordinator.isActive()).isFalse();
        assertThat(coordinator.state().isEmpty()).isTrue();
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 1), now));
        assertThat(sent).isEmpty();
        run(coordinator.onAdminRequest(B, new AdminRequest(7, null, -1, null), now));
        assertThat(one(B, AdminReply.class).message()).contains("not the coordinator");
    }

    // ---- allocation ----------------------------------------------------------------------------------------------

    @Test
    void anAllocationTakesAnEpochThenHostsAndAnswersTheRequestersOnlyOnceStarted() {
        ready(A, B);
        storeAnswers = false;
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 5), now));
        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 5), now));
        assertThat(pendingEpochs).hasSize(1);
        assertThat(sent).as("nothing before the epoch").isEmpty();

        answerEpochs();
        HostShard host = one(A, HostShard.class);
        assertThat(host.epoch()).isEqualTo(1);
        assertThat(take(B, ShardHome.class)).as("no answer before ShardStarted").isEmpty();

        run(coordinator.onShardStarted(A, new ShardStarted(TYPE, 5), now));
        assertThat(one(B, ShardHome.class)).isEqualTo(new ShardHome(TYPE, 5, A));
        assertThat(take(A, ShardHome.class)).as("the new home needs no answer").isEmpty();

        // a duplicate ShardStarted, or one from the wrong member, changes nothing
        run(coordinator.onShardStarted(A, new ShardStarted(TYPE, 5), now));
        run(coordinator.onShardStarted(B, new ShardStarted(TYPE, 5), now));
        assertThat(sent).isEmpty();
        assertThat(coordinator.state().home(TYPE, 5)).isEqualTo(A);

        // later requests are answered at once
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 5), now));
        assertThat(one(B, ShardHome.class).home()).isEqualTo(A);
    }

    @Test
    void requestsAreSpreadOverRegionsCountingAllocationsUnderWay() {
        ready(A, B, C);
        storeAnswers = false;
        for (int shard = 0; shard < 6; shard++) {
            run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, shard), now));
        }
        answerEpochs();
        assertThat(take(A, HostShard.class)).hasSize(2);
        assertThat(take(B, HostShard.class)).hasSize(2);
        assertThat(take(C, HostShard.class)).hasSize(2);
    }

    @Test
    void aStrategyThatThrowsPlacesNothingChangesNothingAndTheShardIsTriedAgain() {
        ready(A, B);
        strategyWritesToTable = true;
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 4), now));
        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 4), now));
        assertThat(sent).as("nothing placed").isEmpty();
        assertThat(coordinator.state().type(TYPE).regions().get(B)).isEmpty();
        assertThat(coordinator.state().home(TYPE, 4)).isNull();
        assertThat(retries).extracting(CoordinatorEffect.RetryAt::atNanos).contains(now + RETRY);

        strategyWritesToTable = false;
        now += RETRY;
        run(coordinator.onRetryDue(now, now));
        HostShard host = one(A, HostShard.class); // the least loaded, ties to the lower member
        assertThat(host.shardId()).isEqualTo(4);
        run(coordinator.onShardStarted(A, new ShardStarted(TYPE, 4), now));
        assertThat(one(B, ShardHome.class)).isEqualTo(new ShardHome(TYPE, 4, A));
        assertThat(coordinator.state().type(TYPE).regions().get(A)).containsExactly(4);
    }

    @Test
    void hostShardIsRepeatedUntilStartedAndAFailedEpochIsAskedAgain() {
        ready(A, B);
        storeAnswers = false;
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 2), now));
        CoordinatorEffect.TakeEpoch first = pendingEpochs.remove(0);
        run(coordinator.onEpochFailed(first.shard(), first.allocation(), "store down", now));
        assertThat(sent).isEmpty();

        now += RETRY;
        run(coordinator.onTick(now));
        assertThat(pendingEpochs).as("asked again").hasSize(1);
        answerEpochs();
        one(A, HostShard.class);

        now += RETRY / 2;
        run(coordinator.onTick(now));
        assertThat(take(A, HostShard.class)).as("not yet").isEmpty();
        now += RETRY;
        run(coordinator.onTick(now));
        assertThat(one(A, HostShard.class).epoch())
                .as("the same epoch, repeated")
                .isEqualTo(1);
    }

    @Test
    void aLateEpochForAnAllocationToAMemberThatLeftIsIgnoredAndTheShardGoesElsewhere() {
        ready(A, B);
        allocated(0, A); // A has one shard, so B is chosen next by the least-shards strategy
        storeAnswers = false;
        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 1), now));
        CoordinatorEffect.TakeEpoch toB = pendingEpochs.remove(0);

        view(List.of(A), Set.of(B), Set.of());
        CoordinatorEffect.TakeEpoch toA = pendingEpochs.remove(0);
        run(coordinator.onEpochTaken(toB.shard(), toB.allocation(), 1, now));
        assertThat(sent).as("the superseded allocation sends nothing").isEmpty();
        run(coordinator.onEpochTaken(toA.shard(), toA.allocation(), 2, now));
        assertThat(one(A, HostShard.class)).isEqualTo(new HostShard(TYPE, 1, 2, 0, List.of()));
    }

    @Test
    void outOfRangeShardsAreIgnored() {
        ready(A, B);
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, SHARDS), now));
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, -1), now));
        assertThat(sent).isEmpty();
        assertThat(pendingEpochs).isEmpty();
    }

    @Test
    void requestsWaitWhileThisSideIsNotInChargeAndAreAllocatedWhenItIs() {
        ready(A, B);
        leases.inCharge = false;
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 3), now));
        assertThat(sent).isEmpty();
        run(coordinator.onTick(now));
        assertThat(take(A, HostShard.class)).isEmpty();

        leases.inCharge = true;
        run(coordinator.onMayAllocate(now));
        one(A, HostShard.class);
    }

    @Test
    void onlyLeasedMembersAreGivenShards() {
        ready(A, B);
        allocated(0, A);
        leases.unleased.add(B);
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 1), now));
        one(A, HostShard.class); // B would have fewer, but holds no lease
    }

    @Test
    void aShardOfAMemberThatLeftWaitsUntilItsLeaseHasSurelyEnded() {
        ready(A, B);
        allocated(4, B);
        leases.fence = 5 * SECOND;
        view(List.of(A), Set.of(B), Set.of());
        retries.clear(); // the rebalance gate's wake-up at the end of its stable window
        assertThat(coordinator.state().home(TYPE, 4)).isNull();

        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 4), now));
        assertThat(take(A, HostShard.class)).as("fenced").isEmpty();
        assertThat(retries).hasSize(1);
        long at = retries.remove(0).atNanos();
        assertThat(at).isEqualTo(now + 5 * SECOND);

        now = at + 1;
        run(coordinator.onRetryDue(at, now));
        one(A, HostShard.class);
    }

    @Test
    void aShardOfAMemberThatLeftWaitsUntilAWinningSetConfirmedThisSide() {
        ready(A, B);
        allocated(4, B);
        leases.confirmed = false;
        view(List.of(A), Set.of(B), Set.of());
        retries.clear(); // the rebalance gate's wake-up at the end of its stable window
        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 4), now));
        assertThat(take(A, HostShard.class)).isEmpty();
        long at = retries.remove(0).atNanos();

        leases.confirmed = true;
        now = at;
        run(coordinator.onRetryDue(at, now));
        one(A, HostShard.class);
    }

    @Test
    void rememberedShardsAreAllocatedWithoutAMessageOnceReady() {
        rememberedShards.put(TYPE, Set.of(2, 7));
        view(List.of(A, B), Set.of(), Set.of(A, B));
        RegionInfo remembering = new RegionInfo(TYPE, false, true, SHARDS, new int[0], new long[0]);
        run(coordinator.onShardStates(A, new ShardStates(List.of(remembering)), now));
        assertThat(take(A, HostShard.class)).as("not before ready").isEmpty();
        run(coordinator.onShardStates(B, new ShardStates(List.of(remembering)), now));
        Set<Integer> hosted = new TreeSet<>();
        take(A, HostShard.class).forEach(h -> hosted.add(h.shardId()));
        take(B, HostShard.class).forEach(h -> hosted.add(h.shardId()));
        assertThat(hosted).containsExactly(2, 7);
    }

    // ---- handoff -------------------------------------------------------------------------------------------------

    @Test
    void aHandOffBuffersEveryRegionThenAllocatesTheTargetWithTheStoppedState() {
        ready(A, B, C);
        allocated(1, A);
        run(coordinator.onAdminRequest(C, new AdminRequest(9, TYPE, 1, "b"), now));
        AdminReply reply = one(C, AdminReply.class);
        assertThat(reply.accepted()).as(reply.message()).isTrue();
        for (Member m : List.of(A, B, C)) {
            assertThat(one(m, BeginHandOff.class)).isEqualTo(new BeginHandOff(TYPE, 1, A));
        }
        assertThat(one(A, HandOff.class).regions()).containsExactly(A, B, C);
        assertThat(coordinator.handoffsInProgress()).containsExactly(TYPE + "/1");

        // a region asking meanwhile is not answered until the shard has its new home
        run(coordinator.onGetShardHome(C, new GetShardHome(TYPE, 1), now));
        assertThat(sent).isEmpty();

        List<EntityTransfer> state = List.of(new EntityTransfer("e1", new byte[] {1, 2}, 3));
        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 1, 1, state), now));
        HostShard host = one(B, HostShard.class);
        assertThat(host.transfer()).isEqualTo(state);
        assertThat(host.transferEpoch()).isEqualTo(1);
        assertThat(host.epoch()).isEqualTo(2);

        run(coordinator.onShardStarted(B, new ShardStarted(TYPE, 1), now));
        assertThat(one(A, ShardHome.class).home()).isEqualTo(B);
        assertThat(one(C, ShardHome.class).home()).isEqualTo(B);
        assertThat(coordinator.handoffsInProgress()).isEmpty();

        // the owner's ShardStopped, repeated, changes nothing
        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 1, 1, state), now));
        assertThat(sent).isEmpty();
        assertThat(coordinator.state().home(TYPE, 1)).isEqualTo(B);
    }

    @Test
    void aHandOffsTargetWithoutALeaseForAnInstantIsWaitedForAndNotPassedOver() {
        ready(A, B, C);
        allocated(1, A);
        run(coordinator.onAdminRequest(C, new AdminRequest(9, TYPE, 1, "b"), now));
        assertThat(one(C, AdminReply.class).accepted()).isTrue();

        // the target's lease renewal is late just when the owner has stopped the shard
        leases.unleased.add(B);
        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 1, 1, List.of()), now));
        assertThat(take(A, HostShard.class))
                .as("not placed where the operator did not ask")
                .isEmpty();
        assertThat(take(C, HostShard.class)).isEmpty();
        assertThat(take(B, HostShard.class)).isEmpty();

        leases.unleased.remove(B);
        run(coordinator.onMayAllocate(now));
        assertThat(one(B, HostShard.class).shardId()).isEqualTo(1);
    }

    @Test
    void aRebalanceRoundIsKeptWithItsMovesFromAndToAndASingleHandOffIsNot() {
        ready(A, B);
        for (int shard = 0; shard < 4; shard++) {
            allocated(shard, A);
        }
        run(coordinator.onAdminRequest(B, new AdminRequest(1, TYPE, 3, "b"), now));
        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 3, 1, List.of()), now));
        run(coordinator.onShardStarted(B, new ShardStarted(TYPE, 3), now));
        assertThat(coordinator.recentRebalances(now))
                .as("an operator's handoff is no round")
                .isEmpty();
        sent.clear();

        allocated(4, A);
        allocated(5, A); // A has 0, 1, 2, 4, 5 and B has 3: one round moves shards from A to B
        long roundStart = now;
        run(coordinator.onAdminRequest(B, new AdminRequest(2, null, 0, null), now));
        AdminReply reply = one(B, AdminReply.class);
        assertThat(reply.accepted()).as(reply.message()).isTrue();
        List<HandOff> handOffs = take(A, HandOff.class);
        assertThat(handOffs).isNotEmpty();
        int moved = handOffs.size();

        now += SECOND;
        assertThat(coordinator.recentRebalances(now))
                .as("the round, its shards still moving")
                .containsExactly(new RebalanceReport(1000, 1, moved, Map.of("a", moved), Map.of()));

        for (HandOff h : handOffs) {
            run(coordinator.onShardStopped(A, new ShardStopped(TYPE, h.shardId(), 1, List.of()), now));
        }
        assertThat(coordinator.recentRebalances(now))
                .containsExactly(new RebalanceReport(
                        (now - roundStart) / 1_000_000, 1, moved, Map.of("a", moved), Map.of("b", moved)));
    }

    @Test
    void aRebalanceCutIntoRoundsByTheLimitOnMovesIsOneEntryCountingItsRounds() {
        ready(A, B);
        for (int shard = 0; shard < SHARDS; shard++) {
            allocated(shard, A);
        }
        now += 2 * REBALANCE; // a stable view
        run(coordinator.onAdminRequest(B, new AdminRequest(1, null, 0, null), now));
        assertThat(one(B, AdminReply.class).accepted()).isTrue();
        List<Integer> rounds = new ArrayList<>();
        for (List<HandOff> handOffs = take(A, HandOff.class); !handOffs.isEmpty(); handOffs = take(A, HandOff.class)) {
            rounds.add(handOffs.size());
            for (HandOff h : handOffs) {
                // each round starts as soon as the moves of the one before are done
                run(coordinator.onShardStopped(A, new ShardStopped(TYPE, h.shardId(), 1, List.of()), now));
            }
        }
        int moved = rounds.stream().mapToInt(Integer::intValue).sum();
        assertThat(rounds).as("rounds of at most 10%% of the shards each").hasSizeGreaterThan(1);
        assertThat(coordinator.recentRebalances(now))
                .as("one rebalance, %s", rounds)
                .hasSize(1)
                .first()
                .satisfies(r -> {
                    assertThat(r.rounds()).as("rounds, as the log numbers them").isEqualTo(rounds.size());
                    assertThat(r.moved()).isEqualTo(moved);
                    assertThat(r.from()).isEqualTo(Map.of("a", moved));
                });
    }

    @Test
    void aHandOffIsRepeatedUntilTheOwnerAnswers() {
        ready(A, B);
        allocated(1, A);
        run(coordinator.onAdminRequest(B, new AdminRequest(1, TYPE, 1, "b"), now));
        sent.clear();
        now += RETRY;
        run(coordinator.onTick(now));
        one(A, HandOff.class);
        one(B, BeginHandOff.class);
        // a ShardStopped from a member that is not the owner is not the answer
        run(coordinator.onShardStopped(B, new ShardStopped(TYPE, 1, 1, List.of()), now));
        assertThat(coordinator.handoffsInProgress()).containsExactly(TYPE + "/1");
    }

    @Test
    void anOwnerThatCrashesMidHandOffTakesItsCopyWithItAndTheShardIsAllocatedAnew() {
        ready(A, B, C);
        allocated(1, B);
        run(coordinator.onAdminRequest(A, new AdminRequest(1, TYPE, 1, "c"), now));
        sent.clear();

        view(List.of(A, C), Set.of(B), Set.of());
        assertThat(coordinator.handoffsInProgress()).isEmpty();
        HostShard host = one(C, HostShard.class);
        assertThat(host.transfer()).as("the state is read from the store").isEmpty();
        run(coordinator.onShardStarted(C, new ShardStarted(TYPE, 1), now));
        assertThat(one(A, ShardHome.class).home()).isEqualTo(C);
        assertThat(take(B, ShardHome.class)).as("gone").isEmpty();
    }

    @Test
    void aTargetThatCrashesMidHandOffIsNotWaitedFor() {
        ready(A, B, C);
        allocated(1, A);
        run(coordinator.onAdminRequest(A, new AdminRequest(1, TYPE, 1, "b"), now));
        view(List.of(A, C), Set.of(B), Set.of());
        sent.clear();
        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 1, 1, List.of()), now));
        assertThat(take(B, HostShard.class)).isEmpty();
        // the strategy picks among the members left: A and C host nothing now, and the older wins the tie
        assertThat(one(A, HostShard.class).shardId()).isEqualTo(1);
    }

    @Test
    void aHandOffStartedByThePreviousCoordinatorCompletesHere() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region(6, 4))), now));
        sent.clear();
        run(coordinator.onShardStopped(B, new ShardStopped(TYPE, 6, 4, List.of()), now));
        assertThat(coordinator.state().home(TYPE, 6)).isNull();
        HostShard host = one(A, HostShard.class);
        assertThat(host.transferEpoch()).isEqualTo(4);
    }

    // ---- graceful leave ------------------------------------------------------------------------------------------

    @Test
    void aLeavingMemberHandsOffEveryShardAndIsGivenNoNewOne() {
        ready(A, B);
        allocated(0, A);
        allocated(1, B);
        allocated(2, A);
        allocated(3, B);
        run(coordinator.onGracefulShutdownRequest(B, new GracefulShutdownRequest(), now));
        Set<Integer> moving = new HashSet<>();
        take(B, HandOff.class).forEach(h -> moving.add(h.shardId()));
        assertThat(moving).containsExactlyInAnyOrder(1, 3);
        sent.clear();

        // a new shard goes to A even though B has fewer
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 8), now));
        one(A, HostShard.class);

        run(coordinator.onShardStopped(B, new ShardStopped(TYPE, 1, 1, List.of()), now));
        assertThat(one(A, HostShard.class).shardId()).isEqualTo(1);
        // a repeated leave request starts nothing twice: shard 3 is still moving
        run(coordinator.onGracefulShutdownRequest(B, new GracefulShutdownRequest(), now));
        assertThat(sent).isEmpty();
        assertThat(coordinator.handoffsInProgress()).containsExactly(TYPE + "/3");
    }

    @Test
    void theCoordinatorsOwnMemberSeesItsMovesUnderWayUntilEveryShardItHandedOffStartedElsewhere() {
        ready(A, B, C);
        allocated(0, A);
        allocated(1, A);
        assertThat(coordinator.movesUnderWay()).isFalse();
        run(coordinator.onGracefulShutdownRequest(A, new GracefulShutdownRequest(), now));
        assertThat(take(A, HandOff.class)).hasSize(2);
        assertThat(coordinator.movesUnderWay()).as("handing off").isTrue();

        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 0, 1, List.of()), now));
        run(coordinator.onShardStopped(A, new ShardStopped(TYPE, 1, 1, List.of()), now));
        Map<Integer, Member> targets = new HashMap<>();
        for (Member m : List.of(B, C)) {
            take(m, HostShard.class).forEach(h -> targets.put(h.shardId(), m));
        }
        assertThat(targets).containsOnlyKeys(0, 1);
        assertThat(coordinator.movesUnderWay())
                .as("stopped on A, not yet started on the target")
                .isTrue();

        run(coordinator.onShardStarted(targets.get(0), new ShardStarted(TYPE, 0), now));
        assertThat(coordinator.movesUnderWay()).as("shard 1 not yet started").isTrue();
        // the target of shard 1 crashes before it started it: the shard is placed again at once, on the member left
        // (its carried state is dropped with the allocation; the new home reads it from the store)
        Member crashed = targets.get(1);
        Member left = crashed.equals(B) ? C : B;
        view(List.of(A, left), Set.of(crashed), Set.of());
        assertThat(take(A, HostShard.class))
                .as("nothing new goes to the leaving member")
                .isEmpty();
        assertThat(one(left, HostShard.class).shardId()).isEqualTo(1);
        assertThat(coordinator.movesUnderWay())
                .as("placed again, not yet started")
                .isTrue();
        run(coordinator.onShardStarted(left, new ShardStarted(TYPE, 1), now));
        assertThat(coordinator.movesUnderWay())
                .as("every shard it handed off has a new home")
                .isFalse();
        assertThat(coordinator.state().home(TYPE, 0)).isEqualTo(targets.get(0));
        assertThat(coordinator.state().home(TYPE, 1)).isEqualTo(left);
    }

    @Test
    void aShardStartedOnAMemberThatIsLeavingMovesOnAtOnce() {
        ready(A, B);
        allocated(0, A);
        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 1), now));
        one(B, HostShard.class);
        run(coordinator.onGracefulShutdownRequest(B, new GracefulShutdownRequest(), now));
        run(coordinator.onShardStarted(B, new ShardStarted(TYPE, 1), now));
        assertThat(one(B, HandOff.class).shardId()).isEqualTo(1);
    }

    // ---- rebalancing ---------------------------------------------------------------------------------------------

    @Test
    void rebalancingWaitsForAStableViewAndForTheMovesOfTheRoundBefore() {
        ready(A);
        for (int shard = 0; shard < SHARDS; shard++) {
            allocated(shard, A);
        }
        now += REBALANCE;
        view(List.of(A, B), Set.of(), Set.of(B));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region())), now));
        sent.clear();

        now += REBALANCE / 2;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class))
                .as("the view changed half an interval ago")
                .isEmpty();

        now += REBALANCE;
        run(coordinator.onTick(now));
        List<HandOff> round = take(A, HandOff.class);
        assertThat(round).isNotEmpty();

        // nothing more while they move; an operator's round is refused
        now += REBALANCE;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class)).as("repeated, not new").hasSize(round.size());
        run(coordinator.onAdminRequest(B, new AdminRequest(3, null, -1, null), now));
        assertThat(one(B, AdminReply.class).message()).contains("already in progress");

        // each round's moves done, the next round starts at once, until the cluster is balanced
        int rounds = 1;
        while (!round.isEmpty()) {
            for (HandOff h : round) {
                run(coordinator.onShardStopped(A, new ShardStopped(TYPE, h.shardId(), 1, List.of()), now));
                run(coordinator.onShardStarted(B, new ShardStarted(TYPE, h.shardId()), now));
            }
            round = take(A, HandOff.class);
            rounds += round.isEmpty() ? 0 : 1;
        }
        assertThat(coordinator.handoffsInProgress()).isEmpty();
        assertThat(coordinator.state().type(TYPE).regions().get(B)).hasSize(SHARDS / 2);
        assertThat(rounds).as("one shard per round: the relative limit is 10%").isEqualTo(SHARDS / 2);
    }

    @Test
    void aJoinIsRebalancedOnceTheMembershipIsStableAndJoinsWithinTheWindowMoveEachShardOnce() {
        long stableAfter = 2 * SECOND;
        coordinator = new Coordinator(
                () -> A, () -> "a", () -> storeId, new RequesterFirst(), leases, REBALANCE, stableAfter, RETRY, 1, now);
        ready(A);
        for (int shard = 0; shard < SHARDS; shard++) {
            allocated(shard, A);
        }
        now += REBALANCE;
        run(coordinator.onTick(now));
        retries.clear();

        // B joins and registers; C joins a second later, within B's window
        view(List.of(A, B), Set.of(), Set.of(B));
        run(coordinator.onRegister(B, new Register(List.of(region()), "store-1"), now));
        assertThat(retries).as("woken when the window ends").isNotEmpty();
        long firstWakeUp = retries.get(retries.size() - 1).atNanos();
        assertThat(firstWakeUp).isEqualTo(now + stableAfter);
        now += SECOND;
        view(List.of(A, B, C), Set.of(), Set.of(C));
        run(coordinator.onRegister(C, new Register(List.of(region()), "store-1"), now));
        long secondWakeUp = retries.get(retries.size() - 1).atNanos();
        assertThat(secondWakeUp).isEqualTo(now + stableAfter);

        now = firstWakeUp;
        run(coordinator.onRetryDue(firstWakeUp, now));
        assertThat(take(A, HandOff.class))
                .as("C joined within B's window: not yet stable")
                .isEmpty();

        now = secondWakeUp;
        run(coordinator.onRetryDue(secondWakeUp, now));
        List<HandOff> round = take(A, HandOff.class);
        assertThat(round).as("stable: a round long before the interval").isNotEmpty();

        Map<Integer, Integer> moves = new HashMap<>();
        while (!round.isEmpty()) {
            for (HandOff h : round) {
                moves.merge(h.shardId(), 1, Integer::sum);
                run(coordinator.onShardStopped(A, new ShardStopped(TYPE, h.shardId(), 1, List.of()), now));
                Member target = take(B, HostShard.class).isEmpty() ? C : B;
                run(coordinator.onShardStarted(target, new ShardStarted(TYPE, h.shardId()), now));
            }
            round = take(A, HandOff.class);
        }
        assertThat(moves.values()).as("each shard moved once").allMatch(n -> n == 1);
        assertThat(coordinator.state().type(TYPE).regions().get(A)).hasSizeLessThanOrEqualTo(SHARDS / 3 + 1);
        assertThat(coordinator.state().type(TYPE).regions().get(B)).hasSizeGreaterThanOrEqualTo(SHARDS / 3);
        assertThat(coordinator.state().type(TYPE).regions().get(C)).hasSizeGreaterThanOrEqualTo(SHARDS / 3);
    }

    @Test
    void noRoundWhileAMemberIsLeaving() {
        ready(A, B, C);
        for (int shard = 0; shard < 6; shard++) {
            allocated(shard, shard < 4 ? A : B);
        }
        run(coordinator.onGracefulShutdownRequest(C, new GracefulShutdownRequest(), now));
        now += 2 * REBALANCE;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class)).isEmpty();
    }

    @Test
    void noRoundWhileTheTableIsRebuilt() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        int[] everyShard = new int[2 * SHARDS];
        for (int shard = 0; shard < SHARDS; shard++) {
            everyShard[2 * shard] = shard;
            everyShard[2 * shard + 1] = 1;
        }
        run(coordinator.onShardStates(A, new ShardStates(List.of(region(everyShard))), now));
        now += 2 * REBALANCE;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class))
                .as("B has not answered: the table is not whole")
                .isEmpty();

        run(coordinator.onShardStates(B, new ShardStates(List.of(region())), now));
        now += 2 * REBALANCE;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class)).as("ready for an interval").isNotEmpty();
    }

    // ---- minimum number of members ------------------------------------------------------------------------------

    @Test
    void noShardIsPlacedBeforeEnoughMembersRegisteredAndThenTheWaitingOnesSpreadOverAll() {
        minNrOfMembers(3);
        ready(A, B);
        for (int shard = 0; shard < 3; shard++) {
            run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, shard), now));
        }
        assertThat(take(A, HostShard.class)).isEmpty();
        assertThat(take(B, HostShard.class)).isEmpty();
        assertThat(coordinator.placementWait()).contains("3 members").contains("2 registered");

        // a probe (no regions) does not count
        Member probe = new Member(0, 9, "probe");
        view(List.of(A, B, probe), Set.of(), Set.of(probe));
        run(coordinator.onShardStates(probe, new ShardStates(List.of()), now));
        assertThat(take(A, HostShard.class)).isEmpty();

        // C registers but has no lease yet: it could not be given shards, so it does not count yet
        leases.unleased.add(C);
        view(List.of(A, B, probe, C), Set.of(), Set.of(C));
        run(coordinator.onShardStates(C, new ShardStates(List.of(region())), now));
        assertThat(coordinator.placementWait()).contains("2 registered");
        assertThat(take(A, HostShard.class)).isEmpty();

        leases.unleased.remove(C);
        run(coordinator.onMayAllocate(now));
        assertThat(coordinator.placementWait()).isNull();
        assertThat(take(A, HostShard.class)).hasSize(1);
        assertThat(take(B, HostShard.class)).hasSize(1);
        assertThat(take(C, HostShard.class)).hasSize(1);

        // once placement started, a member leaving does not stop it
        view(List.of(A, B, probe), Set.of(C), Set.of());
        run(coordinator.onGetShardHome(A, new GetShardHome(TYPE, 7), now));
        List<HostShard> hosted = new ArrayList<>(take(A, HostShard.class));
        hosted.addAll(take(B, HostShard.class));
        assertThat(hosted).filteredOn(h -> h.shardId() == 7).hasSize(1);
    }

    @Test
    void aNewCoordinatorPlacesShardsAtOnceIfMembersReportShardsPlacedBefore() {
        minNrOfMembers(3);
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region(2, 4))), now));
        sent.clear();
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, 5), now));
        assertThat(take(A, HostShard.class).size() + take(B, HostShard.class).size())
                .isEqualTo(1);
    }

    // ---- rolling updates -----------------------------------------------------------------------------------------

    @Test
    void newShardsGoOnlyToTheNewestVersionAndNothingIsRebalancedWhileVersionsDiffer() {
        view(List.of(A, B, C), Set.of(), Set.of(A, B, C));
        run(coordinator.onShardStates(A, states("1.10.0", region()), now));
        run(coordinator.onShardStates(B, states("1.9.2", region()), now));
        run(coordinator.onShardStates(C, states("1.9.2", region()), now));
        sent.clear();
        for (int shard = 0; shard < SHARDS; shard++) {
            requesterFirst = true;
            run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, shard), now));
            requesterFirst = false;
            assertThat(one(A, HostShard.class).shardId()).isEqualTo(shard);
            run(coordinator.onShardStarted(A, new ShardStarted(TYPE, shard), now));
        }
        sent.clear();
        now += 3 * REBALANCE;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class))
                .as("no rebalance during a rolling update")
                .isEmpty();

        // the old members are replaced: one version again, and the load is evened out
        view(List.of(A), Set.of(B, C), Set.of());
        Member d = new Member(0, 4, "d");
        view(List.of(A, d), Set.of(), Set.of(d));
        run(coordinator.onShardStates(d, states("1.10.0", region()), now));
        sent.clear();
        now += 2 * REBALANCE;
        run(coordinator.onTick(now));
        assertThat(take(A, HandOff.class)).isNotEmpty();
    }

    @Test
    void theShardsOfALeavingOldMemberMoveOnlyToTheNewestVersion() {
        view(List.of(A, B, C), Set.of(), Set.of(A, B, C));
        run(coordinator.onShardStates(A, states("2.0.0-RC1", region()), now));
        run(coordinator.onShardStates(B, states("2.0.0-RC1", region(0, 1, 1, 1, 2, 1)), now));
        run(coordinator.onShardStates(C, states("2.0.0", region(3, 1)), now));
        sent.clear();
        run(coordinator.onGracefulShutdownRequest(B, new GracefulShutdownRequest(), now));
        List<HandOff> handOffs = take(B, HandOff.class);
        assertThat(handOffs).hasSize(3);
        for (HandOff h : handOffs) {
            run(coordinator.onShardStopped(B, new ShardStopped(TYPE, h.shardId(), 1, List.of()), now));
        }
        assertThat(take(C, HostShard.class)).hasSize(3);
        assertThat(take(A, HostShard.class))
                .as("A is older, though it hosts nothing")
                .isEmpty();
    }

    @Test
    void versionsCompareAsVersions() {
        List<String> ordered = List.of(
                "",
                "0.9",
                "1.0.0-M1",
                "1.0.0-RC1",
                "1.0",
                "1.0.1",
                "1.2",
                "1.10",
                "2.0.0-alpha",
                "2.0.0-beta",
                "2.0.0");
        for (int i = 0; i < ordered.size(); i++) {
            for (int j = 0; j < ordered.size(); j++) {
                assertThat(Integer.signum(AppVersion.compare(ordered.get(i), ordered.get(j))))
                        .as("%s vs %s", ordered.get(i), ordered.get(j))
                        .isEqualTo(Integer.signum(Integer.compare(i, j)));
            }
        }
        assertThat(AppVersion.compare("1.2.0", "1.2")).isZero();
        assertThat(AppVersion.compare("1.2+build.7", "1.2+build.9")).isZero();
        assertThat(AppVersion.compare("007", "7")).isZero();
    }

    // ---- operators' requests -------------------------------------------------------------------------------------

    @Test
    void anOperatorsRequestIsRefusedWithAReasonAndChangesNothing() {
        view(List.of(A, B), Set.of(), Set.of(A, B));
        run(coordinator.onAdminRequest(B, new AdminRequest(1, null, -1, null), now));
        assertThat(one(B, AdminReply.class).message()).contains("not ready");
        run(coordinator.onShardStates(A, new ShardStates(List.of(region())), now));
        run(coordinator.onShardStates(B, new ShardStates(List.of(region())), now));
        allocated(1, A);

        List<AdminRequest> refused = List.of(
                new AdminRequest(2, "nope", 1, null),
                new AdminRequest(3, TYPE, 99, null),
                new AdminRequest(4, TYPE, 2, null),
                new AdminRequest(5, TYPE, 1, "nobody"),
                new AdminRequest(6, TYPE, 1, "a"));
        for (AdminRequest r : refused) {
            run(coordinator.onAdminRequest(B, r, now));
            AdminReply reply = one(B, AdminReply.class);
            assertThat(reply.accepted()).as(reply.message()).isFalse();
            assertThat(reply.requestId()).isEqualTo(r.requestId());
        }
        assertThat(sent).isEmpty();
        assertThat(coordinator.handoffsInProgress()).isEmpty();

        run(coordinator.onAdminRequest(B, new AdminRequest(7, null, -1, null), now));
        assertThat(one(B, AdminReply.class).message()).contains("Balanced");
    }

    /** The lease keeper's answers, set by each test. */
    private static final class FakeLeases implements AllocationLeases {

        boolean inCharge = true;

        boolean confirmed = true;

        long fence;

        final Set<Member> unleased = new LinkedHashSet<>();

        @Override
        public boolean inCharge(long now) {
            return inCharge;
        }

        @Override
        public long fenceFor(Member gone, long now) {
            return now + fence;
        }

        @Override
        public boolean confirmedSince(long since, long now) {
            return confirmed;
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
            return !unleased.contains(member);
        }
    }
}
