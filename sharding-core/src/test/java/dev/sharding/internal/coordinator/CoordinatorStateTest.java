package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.CoordinatorState.MemberRemoved;
import dev.sharding.internal.coordinator.CoordinatorState.RegionRegistered;
import dev.sharding.internal.coordinator.CoordinatorState.ShardAllocated;
import java.util.List;
import org.junit.jupiter.api.Test;

class CoordinatorStateTest {

    private static final Member A = new Member(0, 1, "a");

    private static final Member B = new Member(0, 2, "b");

    private static final Member P = new Member(0, 3, "proxy");

    private final CoordinatorState registered = CoordinatorState.EMPTY
            .apply(new RegionRegistered(A, "account", 10, false))
            .apply(new RegionRegistered(B, "account", 10, false))
            .apply(new RegionRegistered(P, "account", 10, true));

    @Test
    void allocatesAndRemembersHomes() {
        CoordinatorState s =
                registered.apply(new ShardAllocated("account", 3, A)).apply(new ShardAllocated("account", 4, B));
        assertThat(s.home("account", 3)).isEqualTo(A);
        assertThat(s.home("account", 4)).isEqualTo(B);
        assertThat(s.home("account", 5)).isNull();
        assertThat(s.type("account").regions()).containsOnlyKeys(A, B);
        assertThat(s.type("account").proxies()).containsExactly(P);
        assertThat(registered.home("account", 3)).as("old value unchanged").isNull();
    }

    @Test
    void eventsAppliedTogetherAreCheckedInOrderAndLeaveTheTableUnchangedWhenOneDoesNotFit() {
        CoordinatorState s = registered.applyAll(List.of(
                new ShardAllocated("account", 3, A),
                new ShardAllocated("account", 4, B),
                new CoordinatorState.ShardDeallocated("account", 3),
                new ShardAllocated("account", 3, B)));
        assertThat(s.home("account", 3)).isEqualTo(B);
        assertThat(s.home("account", 4)).isEqualTo(B);
        assertThat(s.type("account").regions().get(A)).isEmpty();
        assertThat(s.type("account").regions().get(B)).containsExactly(3, 4);
        assertThat(s)
                .isEqualTo(registered
                        .apply(new ShardAllocated("account", 4, B))
                        .apply(new ShardAllocated("account", 3, B)));

        assertThatThrownBy(() ->
                        s.applyAll(List.of(new ShardAllocated("account", 5, A), new ShardAllocated("account", 5, B))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already allocated");
        assertThat(s.home("account", 5))
                .as("the table the failed change started from")
                .isNull();
        assertThat(s.applyAll(List.of())).isSameAs(s);
    }

    @Test
    void aMemberRemovedRightAfterRegisteringANewTypeLosesThatRegionToo() {
        CoordinatorState s = registered.applyAll(List.of(
                new RegionRegistered(A, "cart", 4, false), new ShardAllocated("cart", 1, A), new MemberRemoved(A)));
        assertThat(s.type("cart").regions()).isEmpty();
        assertThat(s.home("cart", 1)).isNull();
        assertThat(s.type("account").regions()).containsOnlyKeys(B);
    }

    @Test
    void removingAMemberDropsItsRegionsAndShards() {
        CoordinatorState s = registered
                .apply(new ShardAllocated("account", 3, A))
                .apply(new ShardAllocated("account", 4, B))
                .apply(new MemberRemoved(A))
                .apply(new MemberRemoved(P));
        assertThat(s.home("account", 3)).isNull();
        assertThat(s.home("account", 4)).isEqualTo(B);
        assertThat(s.type("account").regions()).containsOnlyKeys(B);
        assertThat(s.type("account").proxies()).isEmpty();
    }

    @Test
    void deallocatingAShardFreesIt() {
        CoordinatorState s = registered
                .apply(new ShardAllocated("account", 3, A))
                .apply(new CoordinatorState.ShardDeallocated("account", 3));
        assertThat(s.home("account", 3)).isNull();
        assertThat(s.type("account").regions().get(A)).isEmpty();
        assertThat(s.apply(new ShardAllocated("account", 3, B)).home("account", 3))
                .isEqualTo(B);
        assertThatThrownBy(() -> s.apply(new CoordinatorState.ShardDeallocated("account", 3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not allocated");
    }

    @Test
    void refusesEventsThatBreakTheTable() {
        CoordinatorState s = registered.apply(new ShardAllocated("account", 3, A));
        assertThatThrownBy(() -> s.apply(new ShardAllocated("account", 3, B)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Shard [3] of account already allocated")
                .hasMessageContaining("in state");
        assertThatThrownBy(() -> s.apply(new ShardAllocated("account", 10, A)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> s.apply(new ShardAllocated("account", 5, P)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("hosts no region");
        assertThatThrownBy(() -> s.apply(new ShardAllocated("cart", 1, A)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unknown type");
        assertThatThrownBy(() -> s.apply(new RegionRegistered(B, "account", 20, false)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has 20 shards, not 10");
        assertThatThrownBy(() -> s.apply(new RegionRegistered(A, "account", 10, true)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot become a proxy");
    }
}
