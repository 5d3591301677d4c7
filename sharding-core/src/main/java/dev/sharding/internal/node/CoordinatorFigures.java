package dev.sharding.internal.node;

import dev.sharding.internal.protocol.RebalanceReport;
import dev.sharding.internal.protocol.RefusedMember;
import java.util.List;

/**
 * What the active coordinator on a node adds to that node's answer to {@code GetRegionStats}; a node whose
 * coordinator is not active adds {@link #NONE}.
 *
 * @param handoffs the handoffs in progress, as "type/shard"
 * @param rebalances the recent rebalances that moved shards, newest first
 * @param refused the members of the view it refused for good, with why
 */
record CoordinatorFigures(List<String> handoffs, List<RebalanceReport> rebalances, List<RefusedMember> refused) {

    /** What a node whose coordinator is not active says. */
    static final CoordinatorFigures NONE = new CoordinatorFigures(List.of(), List.of(), List.of());
}
