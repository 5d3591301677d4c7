package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Member to its coordinator, answering {@link LeasePing}: I follow you; and please renew my lease. The reply is
 * {@link LeaseGrant} or {@link LeaseRefused}, for {@code request}, whose sending time the member keeps: its lease runs
 * from then, never from when the grant arrives.
 *
 * @param round the round of the ping answered
 * @param request the member's own request number
 */
public record LeasePong(long round, long request) implements LeaseMessage {

    /** The wire tag. */
    public static final int TAG = 24;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public Sender sender() {
        return Sender.ANYONE;
    }

    @Override
    public void dispatchTo(Handler handler, Member from) {
        handler.onPong(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(round).int64(request);
    }

    static LeasePong readFrom(WireReader in) {
        return new LeasePong(in.int64(), in.int64());
    }
}
