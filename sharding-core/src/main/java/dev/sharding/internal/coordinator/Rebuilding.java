package dev.sharding.internal.coordinator;

import dev.sharding.Member;
import dev.sharding.internal.protocol.AdminReply;
import dev.sharding.internal.protocol.AdminRequest;
import dev.sharding.internal.protocol.GetShardHome;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.ShardStopped;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The coordinator's phase from its activation until every member of the view answered {@code GetShardStates} (or
 * registered, was refused, or left): the table is rebuilt from their reports. Shard-home requests wait, since a shard
 * missing from the table may yet be reported; a handoff the previous coordinator started completes, and a member that
 * leaves meanwhile starts handing off. Then {@link Active}. Control thread only.
 */
final class Rebuilding extends Coordinating {

    /** The members asked for their shards that have not answered. */
    private final Set<Member> awaiting;

    private Rebuilding(Parts parts, List<Member> members) {
        super(parts);
        this.awaiting = new HashSet<>(members);
    }

    /** This node became the view's coordinator: start from an empty table and ask every member for its shards. */
    static Rebuilding start(Parts parts, List<Member> members) {
        parts.rebuild().activate(members);
        return new Rebuilding(parts, members);
    }

    /**
     * A member that leaves before it reported may have served shards nobody else reports, under a lease from this
     * coordinator: those wait until that lease has ended.
     */
    @Override
    CoordinatorPhase viewChanged(Set<Member> gone) {
        for (Member m : gone) {
            if (awaiting.contains(m)) {
                rebuild.leftUnreported(m);
            }
        }
        awaiting.removeAll(gone);
        return awaiting.isEmpty() ? Active.enter(parts).viewChanged(gone) : this;
    }

    @Override
    CoordinatorPhase answered(Member from, TableRebuild.Answer answer, int remembering) {
        if (answer == TableRebuild.Answer.IGNORED) {
            return this;
        }
        awaiting.remove(from);
        if (!awaiting.isEmpty()) {
            return this;
        }
        Active active = Active.enter(parts);
        if (answer != TableRebuild.Answer.REFUSED) {
            allocator.retryWaiting();
        }
        return active;
    }

    /** Waits until the table is whole: the shard may yet be reported by a member that has not answered. */
    @Override
    public CoordinatorPhase onGetShardHome(Member from, GetShardHome m) {
        t.await(new ShardKey(m.typeName(), m.shardId()), Set.of(from));
        return this;
    }

    /** A handoff started here or by the previous coordinator completed: the shard is allocated again at once. */
    @Override
    public CoordinatorPhase onShardStopped(Member from, ShardStopped m) {
        handOffs.stopped(from, m);
        return this;
    }

    @Override
    public CoordinatorPhase onAdminRequest(Member from, AdminRequest m) {
        t.send(from, new AdminReply(m.requestId(), false, "The coordinator on " + t.nodeName() + " is not ready"));
        return this;
    }

    /** Asks the members that have not answered again, and repeats unanswered requests. */
    @Override
    public CoordinatorPhase onTick() {
        for (Member m : awaiting) {
            t.send(m, new GetShardStates());
        }
        repeat();
        return this;
    }
}
