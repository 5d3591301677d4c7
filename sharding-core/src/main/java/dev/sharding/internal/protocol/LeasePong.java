package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.MalformedFrameException;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;

/**
 * Member to its coordinator, answering {@link LeasePing}: I follow you; and please renew my lease. The reply is
 * {@link LeaseGrant} or {@link LeaseRefused}, for {@code request}, whose sending time the member keeps: its lease runs
 * from then, never from when the grant arrives.
 *
 * <p>It also says how long ago the member last answered a coordinator before this one: a new coordinator bounds
 * every lease its predecessors granted by the latest such answer among a winning set of its members
 * ({@code CoordinatorLeases#activationConfirmedAt}). Measured as time elapsed on the member's clock, so that no two
 * clocks are compared.
 *
 * @param round the round of the ping answered
 * @param request the member's own request number
 * @param earlierAnswerAgoNanos how long before sending this the member last answered another coordinator (or this
 *     one in an earlier term), {@link #NONE} if it never did
 */
public record LeasePong(long round, long request, long earlierAnswerAgoNanos) implements LeaseMessage {

    /** The wire tag. */
    public static final int TAG = 24;

    /** {@link #earlierAnswerAgoNanos} of a member that never answered another coordinator. */
    public static final long NONE = -1;

    /** Checks the fields. */
    public LeasePong {
        if (earlierAnswerAgoNanos < NONE) {
            throw new IllegalArgumentException("earlierAnswerAgoNanos " + earlierAnswerAgoNanos + " < -1");
        }
    }

    /** A member that never answered another coordinator. */
    public LeasePong(long round, long request) {
        this(round, request, NONE);
    }

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
        out.int64(round).int64(request).int64(earlierAnswerAgoNanos);
    }

    static LeasePong readFrom(WireReader in) {
        long round = in.int64();
        long request = in.int64();
        long ago = in.int64();
        if (ago < NONE) {
            throw new MalformedFrameException("LeasePong with a negative earlier answer " + ago);
        }
        return new LeasePong(round, request, ago);
    }
}
