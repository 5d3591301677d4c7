package dev.sharding.internal.node;

import dev.sharding.Member;
import dev.sharding.internal.protocol.GetShardStates;
import dev.sharding.internal.protocol.LeasePing;
import dev.sharding.internal.protocol.ProtocolMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The first requests of a new coordinator that came before this node installed the view that makes it one. When the
 * coordinator fails, the next member in the view installs that view and at once pings every member for its lease and
 * asks each for its shards; a member whose copy of the view comes a moment later would drop both, and the coordinator
 * would ask again only at its next ping round or retry, while the member's entities wait without a lease. They are
 * held here instead, and handled once the view that makes their sender the coordinator is installed.
 *
 * <p>Only the coordinator's two queries are held: a lease ping (the answer asks for a lease, which the coordinator
 * grants on its own terms) and the request for this node's shards. Both are harmless whenever they are handled, unlike
 * a command to host or hand off a shard, which the coordinator sends again anyway. Held only from a member of the
 * current view (the only ones that can become the coordinator of the next view), at most {@link #MAX} of them and
 * for at most {@link #MAX_AGE_NANOS}.
 *
 * <p>Control thread only.
 */
final class EarlyCoordinatorMessages {

    /** The most messages held; the oldest go first. */
    static final int MAX = 256;

    /** A message held longer than this is dropped when the next view comes. */
    static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private record Early(Member from, ProtocolMessage message, long at) {}

    private final ArrayDeque<Early> held = new ArrayDeque<>();

    private final Membership membership;

    EarlyCoordinatorMessages(Membership membership) {
        this.membership = membership;
    }

    /**
     * Holds a message if it is a new coordinator's query that came early (see the class comment).
     *
     * @return whether it was held
     */
    boolean hold(Member from, ProtocolMessage msg, long now) {
        if (!(msg instanceof LeasePing || msg instanceof GetShardStates)) {
            return false;
        }
        Member coordinator = membership.coordinator();
        if (coordinator == null || from.equals(coordinator) || !membership.isMember(from)) {
            return false;
        }
        if (held.size() >= MAX) {
            held.pollFirst();
        }
        held.addLast(new Early(from, msg, now));
        return true;
    }

    /**
     * A view was installed: the messages held from its coordinator are handled, in the order they came; the others
     * are dropped.
     *
     * @param coordinator the coordinator of the view now installed
     * @param now the time
     * @param handler handles a message as if it came now
     */
    void viewInstalled(@Nullable Member coordinator, long now, BiConsumer<Member, ProtocolMessage> handler) {
        if (held.isEmpty()) {
            return;
        }
        List<Early> due = new ArrayList<>(held);
        held.clear();
        for (Early e : due) {
            if (e.from().equals(coordinator) && now - e.at() < MAX_AGE_NANOS) {
                handler.accept(e.from(), e.message());
            }
        }
    }

    /** How many are held now. */
    int size() {
        return held.size();
    }
}
