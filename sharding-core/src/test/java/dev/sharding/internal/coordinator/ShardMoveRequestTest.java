package dev.sharding.internal.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.Member;
import dev.sharding.internal.coordinator.ShardTable.RegionRegistered;
import dev.sharding.internal.coordinator.ShardTable.ShardAllocated;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each rule of an operator's request to move a shard, over a table of fake members and no network. */
class ShardMoveRequestTest {

    private static final Member A = new Member(0, 1, "a");

    private static final Member B = new Member(0, 2, "b");

    private static final Member P = new Member(0, 3, "proxy");

    private static final Member GONE = new Member(0, 4, "gone");

    private final ShardTable table = new ShardTable();

    {
        table.applyAll(List.of(
                new RegionRegistered(A, "account", 10, false),
                new RegionRegistered(B, "account", 10, false),
                new RegionRegistered(P, "account", 10, true),
                new ShardAllocated("account", 3, A)));
    }

    private final List<Member> view = List.of(A, B, P);

    private ShardMoveRequest judge(String type, int shard, String target) {
        return judge(type, shard, target, Set.of(), -1);
    }

    private ShardMoveRequest judge(String type, int shard, String target, Set<Member> leaving, int handingOff) {
        return ShardMoveRequest.judge(table, view, leaving, id -> id == handingOff, id -> id == 5, type, shard, target);
    }

    @Test
    void aShardMovesToTheNamedNode() {
        ShardMoveRequest move = judge("account", 3, "b");
        assertThat(move.refusal()).isNull();
        assertThat(move.owner()).isEqualTo(A);
        assertThat(move.target()).isEqualTo(B);
        assertThat(move.accepted("account", 3)).isEqualTo("Handing off shard 3 of account from a to b");
    }

    @Test
    void withoutATargetTheStrategyChooses() {
        ShardMoveRequest move = judge("account", 3, null);
        assertThat(move.refusal()).isNull();
        assertThat(move.target()).isNull();
        assertThat(move.accepted("account", 3)).isEqualTo("Handing off shard 3 of account from a");
    }

    @Test
    void eachRuleRefusesWithItsReason() {
        assertThat(judge("order", 3, null).refusal()).isEqualTo("Unknown entity type order");
        assertThat(judge("account", 10, null).refusal()).isEqualTo("Unknown shard 10 of account (it has 10 shards)");
        assertThat(judge("account", -1, null).refusal()).startsWith("Unknown shard -1 of account");
        assertThat(judge("account", 3, GONE.name()).refusal()).isEqualTo("Unknown node gone");
        assertThat(judge("account", 3, "b", Set.of(), 3).refusal())
                .isEqualTo("A handoff of shard 3 of account is already in progress");
        assertThat(judge("account", 4, "b").refusal()).isEqualTo("Shard 4 of account is not allocated");
        assertThat(judge("account", 5, "b").refusal())
                .as("its region serves it already, but the coordinator has not heard so yet")
                .isEqualTo("Shard 5 of account is being allocated (its region has not confirmed it yet); try again in a"
                        + " moment");
        assertThat(judge("account", 3, "proxy").refusal()).isEqualTo("Node proxy cannot host account");
        assertThat(judge("account", 3, "b", Set.of(B), -1).refusal()).isEqualTo("Node b cannot host account");
        assertThat(judge("account", 3, "a").refusal()).isEqualTo("Shard 3 of account is already on a");
    }

    @Test
    void aRefusalNamesNoOwnerOrTarget() {
        ShardMoveRequest refused = judge("account", 4, "b");
        assertThat(refused.owner()).isNull();
        assertThat(refused.target()).isNull();
    }
}
