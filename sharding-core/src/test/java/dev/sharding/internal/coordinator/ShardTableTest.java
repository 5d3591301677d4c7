package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.ShardTable.MemberRemoved;
import dev.sharding.internal.coordinator.ShardTable.RegionRegistered;
import dev.sharding.internal.coordinator.ShardTable.ShardAllocated;
import dev.sharding.internal.coordinator.ShardTable.ShardDeallocated;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardTableTest {

    private static final Member A = new Member(0, 1, "a");

    private static final Member B = new Member(0, 2, "b");

    private static final Member P = new Member(0, 3, "proxy");

    private final ShardTable table = new ShardTable();

    {
        table.apply(new RegionRegistered(A, "account", 10, false));
        table.apply(new RegionRegistered(B, "account", 10, false));
        table.apply(new RegionRegistered(P, "account", 10, true));
    }

    @Test
    void allocatesAndRemembersHomes() {
        table.apply(new ShardAllocated("account", 3, A));
        table.apply(new ShardAllocated("account", 4, B));
        assertThat(table.home("account", 3)).isEqualTo(A);
        assertThat(table.home("account", 4)).isEqualTo(B);
        assertThat(table.home("account", 5)).isNull();
        assertThat(table.type("account").regions()).containsOnlyKeys(A, B);
        assertThat(table.type("account").regions().get(A)).containsExactly(3);
        assertThat(table.type("account").homes()).containsExactly(Map.entry(3, A), Map.entry(4, B));
        assertThat(table.type("account").proxies()).containsExactly(P);
    }

    @Test
    void whatItHandsOutAreReadOnlyViewsThatFollowTheTable() {
        Map<Member, Set<Integer>> regions = table.type("account").regions();
        Set<Integer> ofA = regions.get(A);
        assertThat(ofA).isEmpty();
        table.apply(new ShardAllocated("account", 3, A));
        assertThat(ofA).containsExactly(3);
        assertThat(table.type("account").homes()).containsOnlyKeys(3);
        assertThatThrownBy(() -> ofA.add(4)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> regions.remove(A)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> table.type("account").homes().put(4, B))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> table.types().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(table.home("account", 4)).isNull();
    }

    @Test
    void eventsAppliedTogetherAreCheckedInOrderAndLeaveTheTableUnchangedWhenOneDoesNotFit() {
        table.applyAll(List.of(
                new ShardAllocated("account", 3, A),
                new ShardAllocated("account", 4, B),
                new ShardDeallocated("account", 3),
                new ShardAllocated("account", 3, B)));
        assertThat(table.home("account", 3)).isEqualTo(B);
        assertThat(table.home("account", 4)).isEqualTo(B);
        assertThat(table.type("account").regions().get(A)).isEmpty();
        assertThat(table.type("account").regions().get(B)).containsExactly(3, 4);
        String before = table.toString();

        // every kind of event before the one that does not fit is undone
        assertThatThrownBy(() -> table.applyAll(List.of(
                        new ShardAllocated("account", 5, A),
                        new ShardDeallocated("account", 4),
                        new RegionRegistered(A, "cart", 4, false),
                        new ShardAllocated("cart", 1, A),
                        new RegionRegistered(P, "cart", 4, true),
                        new MemberRemoved(B),
                        new MemberRemoved(P),
                        new ShardAllocated("account", 5, A))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already allocated");
        assertThat(table.toString())
                .as("the table the failed change started from")
                .isEqualTo(before);
        assertThat(table.type("cart")).isNull();
        assertThat(table.home("account", 5)).isNull();
        assertThat(table.type("account").regions().get(B)).containsExactly(3, 4);
        assertThat(table.type("account").proxies()).containsExactly(P);

        table.applyAll(List.of());
        assertThat(table.toString()).isEqualTo(before);
    }

    @Test
    void aMemberRemovedRightAfterRegisteringANewTypeLosesThatRegionToo() {
        table.applyAll(List.of(
                new RegionRegistered(A, "cart", 4, false), new ShardAllocated("cart", 1, A), new MemberRemoved(A)));
        assertThat(table.type("cart").regions()).isEmpty();
        assertThat(table.home("cart", 1)).isNull();
        assertThat(table.type("account").regions()).containsOnlyKeys(B);
    }

    @Test
    void removingAMemberDropsItsRegionsAndShards() {
        table.apply(new ShardAllocated("account", 3, A));
        table.apply(new ShardAllocated("account", 4, B));
        table.apply(new MemberRemoved(A));
        table.apply(new MemberRemoved(P));
        assertThat(table.home("account", 3)).isNull();
        assertThat(table.home("account", 4)).isEqualTo(B);
        assertThat(table.type("account").regions()).containsOnlyKeys(B);
        assertThat(table.type("account").homes()).containsOnlyKeys(4);
        assertThat(table.type("account").proxies()).isEmpty();
    }

    @Test
    void deallocatingAShardFreesIt() {
        table.apply(new ShardAllocated("account", 3, A));
        table.apply(new ShardDeallocated("account", 3));
        assertThat(table.home("account", 3)).isNull();
        assertThat(table.type("account").regions().get(A)).isEmpty();
        assertThatThrownBy(() -> table.apply(new ShardDeallocated("account", 3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not allocated");
        table.apply(new ShardAllocated("account", 3, B));
        assertThat(table.home("account", 3)).isEqualTo(B);
    }

    @Test
    void refusesEventsThatBreakTheTableAndChangesNothing() {
        table.apply(new ShardAllocated("account", 3, A));
        String before = table.toString();
        assertThatThrownBy(() -> table.apply(new ShardAllocated("account", 3, B)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Shard [3] of account already allocated")
                .hasMessageContaining("in state");
        assertThatThrownBy(() -> table.apply(new ShardAllocated("account", 10, A)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> table.apply(new ShardAllocated("account", 5, P)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("hosts no region");
        assertThatThrownBy(() -> table.apply(new ShardAllocated("cart", 1, A)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unknown type");
        assertThatThrownBy(() -> table.apply(new RegionRegistered(B, "account", 20, false)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has 20 shards, not 10");
        assertThatThrownBy(() -> table.apply(new RegionRegistered(A, "account", 10, true)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot become a proxy");
        assertThatThrownBy(() -> table.apply(new RegionRegistered(P, "account", 10, false)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot host");
        assertThat(table.toString()).isEqualTo(before);
    }

    @Test
    void clearingForgetsEveryType() {
        table.apply(new ShardAllocated("account", 3, A));
        table.clear();
        assertThat(table.isEmpty()).isTrue();
        assertThat(table.home("account", 3)).isNull();
        assertThat(table.type("account")).isNull();
    }
}
