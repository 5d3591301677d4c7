package dev.sharding.internal.ask;

import dev.sharding.internal.protocol.FailureKind;
import org.jspecify.annotations.Nullable;

/**
 * Where the outcome of one delivered message goes: a local caller's future, a remote caller, or nowhere (a tell).
 */
public interface ReplySink {

    /** The sink of a tell: outcomes are dropped (failures are logged where they happen). */
    ReplySink TELL = new ReplySink() {
        @Override
        public void reply(@Nullable Object value) {}

        @Override
        public void fail(FailureKind kind, String className, @Nullable String message) {}

        @Override
        public boolean isTell() {
            return true;
        }
    };

    /**
     * The handler's reply.
     *
     * @param value the reply, or {@code null}
     */
    void reply(@Nullable Object value);

    /**
     * The message failed.
     *
     * @param kind why
     * @param className the class name of the exception
     * @param message its message
     */
    void fail(FailureKind kind, String className, @Nullable String message);

    /**
     * Whether nobody waits for the outcome.
     *
     * @return true for a tell
     */
    default boolean isTell() {
        return false;
    }
}
