package dev.sharding.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.SplitBrainSettings;
import dev.sharding.internal.coordinator.Coordinator;
import dev.sharding.internal.coordinator.CoordinatorEffect;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.HostShard;
import dev.sharding.internal.protocol.LeasePong;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.ShardHome;
import dev.sharding.internal.protocol.ShardStates;
import dev.sharding.spi.LeastShardAllocationStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's side of a half-broken network's heal, with the real lease keeper under the coordinator: the link
 * between the coordinator and member C breaks while both reach B, D and E. Its view drops C; the others' views drop the
 * coordinator, and they follow C. When the link heals they install the merged view, this coordinator first, a moment
 * before this coordinator's own view has C back: their pongs confirm it again while it still takes C for gone. C still
 * serves its shard on the leases of its own term, so placing it anew then would make two live copies (writes fenced
 * by the epoch, reads not). It waits: once C is back in its view and reports the shard, the shard stays C's.
 */
class AsymmetricHealTest {

    private static final String TYPE = "account";

    private static final int SHARDS = 10;

    /** The shard C hosts. */
    private static final int SHARD = 7;

    private static final Member B = new Member(0, 3, "b");

    private static final Member C = new Member(0, 4, "c");

    private static final Member D = new Member(0, 5, "d");

    private static final Member E = new Member(0, 6, "e");

    private final MemberLeaseTest.Host host = new MemberLeaseTest.Host();

    private final LeaseKeeper keeper =
            host.keeper(SplitBrainSettings.DEFAULT, Duration.ofSeconds(5).toNanos());

    private final Coordinator coordinator = new Coordinator(
            host::self,
            () -> "self",
            () -> "",
            new LeastShardAllocationStrategy(),
            keeper,
            Duration.ofSeconds(10).toNanos(),
            Duration.ofSeconds(1).toNanos(),
            System.nanoTime());

    /** What the coordinator decided, in order. */
    private final List<CoordinatorEffect> effects = new ArrayList<>();

    @Test
    void membersThatFollowedTheMemberItTookForGoneMakeItWaitForThatMemberRatherThanPlaceItsShardAnew() {
        List<Member> all = List.of(host.self(), B, C, D, E);
        view(all, Set.of(), Set.copyOf(all));
        for (Member m : all) {
            run(coordinator.onShardStates(m, states(m.equals(C) ? new int[] {SHARD} : new int[0]), System.nanoTime()));
        }
        pongs(new LeasePong(host.lastPing().round(), 1), B, D, E);
        keeper.tick(System.nanoTime());
        assertThat(keeper.inCharge(System.nanoTime())).as("in charge").isTrue();
        assertThat(coordinator.state().home(TYPE, SHARD)).isEqualTo(C);

        // the link to C breaks: this view drops C (it was granted no lease, so its own fence is short)
        long left = System.nanoTime();
        view(List.of(host.self(), B, D, E), Set.of(C), Set.of());
        // the next ping round (C's own fence, a margin after it left, ends long before)
        long viewRound = host.lastPing().round();
        Awaitility.await("the next ping round")
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    keeper.tick(System.nanoTime());
                    return host.lastPing().round() > viewRound;
                });
        // B, D and E followed C meanwhile, and a moment ago installed the merged view, this coordinator first: they
        // answer again, saying they answered C just now
        pongs(new LeasePong(host.lastPing().round(), 2, 0), B, D, E);
        assertThat(keeper.confirmedSince(left, System.nanoTime()))
                .as("a winning set confirmed this coordinator since C left")
                .isTrue();

        effects.clear();
        run(coordinator.onGetShardHome(B, new GetShardHome(TYPE, SHARD), System.nanoTime()));
        assertThat(effects)
                .as("no new epoch, no new home: C may still serve the shard on the leases of its own term")
                .noneMatch(e -> e instanceof CoordinatorEffect.TakeEpoch)
                .noneMatch(e -> e instanceof CoordinatorEffect.Send s && s.message() instanceof HostShard);

        // C is in this coordinator's view again, and reports the shard it kept serving
        view(all, Set.of(), Set.of(C));
        run(coordinator.onShardStates(C, states(SHARD), System.nanoTime()));
        assertThat(coordinator.state().home(TYPE, SHARD)).as("still C's").isEqualTo(C);
        assertThat(sent(B, ShardHome.class))
                .as("the waiting request answered with C")
                .anyMatch(h -> h.shardId() == SHARD && h.home().equals(C));
        assertThat(effects).noneMatch(e -> e instanceof CoordinatorEffect.TakeEpoch);
    }

    private void view(List<Member> members, Set<Member> gone, Set<Member> joined) {
        long now = System.nanoTime();
        keeper.onView(members, now);
        run(coordinator.onView(members, gone, joined, now));
    }

    private void pongs(LeasePong pong, Member... from) {
        for (Member m : from) {
            keeper.onPong(m, pong);
        }
    }

    private void run(List<CoordinatorEffect> decided) {
        effects.addAll(decided);
    }

    private static ShardStates states(int... hosted) {
        long[] epochs = new long[hosted.length];
        Arrays.fill(epochs, 1L);
        return new ShardStates(List.of(new RegionInfo(TYPE, false, false, SHARDS, hosted, epochs)));
    }

    private <T extends ProtocolMessage> List<T> sent(Member to, Class<T> type) {
        List<T> found = new ArrayList<>();
        for (CoordinatorEffect e : effects) {
            if (e instanceof CoordinatorEffect.Send s && s.to().equals(to) && type.isInstance(s.message())) {
                found.add(type.cast(s.message()));
            }
        }
        return found;
    }
}
