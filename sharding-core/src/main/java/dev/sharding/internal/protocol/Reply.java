package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Entity's region to the asking member: the reply to an ask.
 *
 * @param correlationId the ask's id at the asking member
 * @param payload the encoded reply, or {@code null} when the handler returned nothing
 */
public record Reply(long correlationId, byte @Nullable [] payload) implements EntityTraffic {

    /** The wire tag. */
    public static final int TAG = 10;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void dispatchTo(Handler handler, Member from, byte[] frame, int offset, int length) {
        handler.onReply(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(correlationId).bool(payload != null);
        if (payload != null) {
            out.bytes(payload);
        }
    }

    static Reply readFrom(WireReader in, int maxPayload) {
        long corr = in.int64();
        return new Reply(corr, in.bool() ? in.bytes(maxPayload) : null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reply r && r.correlationId == correlationId && Arrays.equals(r.payload, payload);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(correlationId);
    }

    @Override
    public String toString() {
        return "Reply[corr=" + correlationId + ", " + (payload == null ? "no payload" : payload.length + " bytes")
                + "]";
    }
}
