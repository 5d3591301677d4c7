package dev.sharding.internal.protocol;

import dev.sharding.Member;
import dev.sharding.internal.codec.WireReader;
import dev.sharding.internal.codec.WireWriter;
import org.jspecify.annotations.Nullable;

/**
 * Entity's region (or a region on the way) to the asking member: the ask failed. Carries the failure's kind and the
 * class name and message of the exception, never the exception itself.
 *
 * @param correlationId the ask's id at the asking member
 * @param kind why it failed
 * @param className the class name of the exception
 * @param message the exception's message
 */
public record Failure(
        long correlationId,
        FailureKind kind,
        String className,
        @Nullable String message) implements EntityTraffic {

    /** The wire tag. */
    public static final int TAG = 11;

    @Override
    public int tag() {
        return TAG;
    }

    @Override
    public void dispatchTo(Handler handler, Member from, byte[] frame, int offset, int length) {
        handler.onFailure(from, this);
    }

    @Override
    public void writeTo(WireWriter out) {
        out.int64(correlationId).byte8(kind.code()).string(className).nullableString(message);
    }

    static Failure readFrom(WireReader in) {
        return new Failure(in.int64(), FailureKind.of(in.byte8()), in.string(), in.nullableString());
    }
}
