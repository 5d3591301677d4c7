package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import java.util.List;
import java.util.Set;

/**
 * The coordinator's phase while another node coordinates: its tables are empty, and it waits for a view that makes
 * this node's member the oldest. Control thread only.
 */
final class Inactive implements CoordinatorPhase {

    private final Parts parts;

    Inactive(Parts parts) {
        this.parts = parts;
    }

    /** Becomes the view's coordinator if this node's member is the oldest: the table is rebuilt. */
    @Override
    public CoordinatorPhase onView(List<Member> members, Set<Member> gone, Set<Member> joined) {
        return parts.t().coordinates(members) ? Rebuilding.start(parts, members) : this;
    }

    @Override
    public CoordinatorPhase onAdminRequest(Member from, AdminRequest m) {
        CoordinatorTables t = parts.t();
        t.send(
                from,
                new AdminReply(m.requestId(), false, "Node " + t.nodeName() + " is not the coordinator; try again"));
        return this;
    }
}
