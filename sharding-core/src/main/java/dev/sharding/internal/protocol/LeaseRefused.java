package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to member, answering {@link LeasePong}: no lease, because the coordinator is not allowed to run (its
 * side lost, or it lacks a quorum or the store lease) or the member is not in its view.
 *
 * @param request the request answered
 * @param reason why, for the member's log and its callers
 */
public record LeaseRefused(long request, String reason) implements LeaseMessage {

    /** How a reason starts when the member is not in the coordinator's view: it was removed from the cluster. */
    public static final String NOT_A_MEMBER = "not a member";

    /**
     * Whether the member was refused because it is not in the coordinator's view.
     *
     * @return true when removed from the cluster
     */
    public boolean notMember() {
        return reason.startsWith(NOT_A_MEMBER);
    }

    /** The wire tag. */
    public static final int TAG = 26;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.COORDINATOR;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onRefused(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(request).string(reason);
    }

    static LeaseRefused readFrom(WireReader in) {
        return new LeaseRefused(in.int64(), in.string());
    }
}
