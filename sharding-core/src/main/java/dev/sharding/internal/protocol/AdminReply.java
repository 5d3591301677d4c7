package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Coordinator to the node that sent an {@link AdminRequest}: what was done, or why nothing was.
 *
 * @param requestId the request's id
 * @param accepted whether the operation started
 * @param message what was done, or the error
 */
public record AdminReply(long requestId, boolean accepted, String message) implements NodeMessage {

    /** The wire tag. */
    public static final int TAG = 21;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.MEMBER;
    }

    @Override
    public boolean answeredWhileStopping() {
        return false;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onAdminReply(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(requestId).bool(accepted).string(message);
    }

    static AdminReply readFrom(WireReader in) {
        return new AdminReply(in.int64(), in.bool(), in.string());
    }
}
