package dev.sharding.internal.ask;

import dev.sharding.BufferFullException;
import dev.sharding.ClusterPartitionedException;
import dev.sharding.MessageRejectedException;
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
     * The runtime refused the message before an entity took it (a full buffer or queue, a node that does not serve, a
     * message it cannot read): a local caller gets {@code reason} itself, a remote one its kind, class and text.
     *
     * @param reason why
     */
    default void refuse(RuntimeException reason) {
        fail(kindOf(reason), reason.getClass().getName(), reason.getMessage());
    }

    /**
     * The kind of failure a refusal stands for, as a remote caller hears it.
     *
     * @param reason why the message was refused
     * @return its kind
     */
    static FailureKind kindOf(RuntimeException reason) {
        if (reason instanceof ClusterPartitionedException) {
            return FailureKind.PARTITIONED;
        }
        if (reason instanceof BufferFullException) {
            return FailureKind.BUFFER_FULL;
        }
        if (reason instanceof MessageRejectedException) {
            return FailureKind.REJECTED;
        }
        return FailureKind.UNAVAILABLE;
    }

    /**
     * Whether nobody waits for the outcome.
     *
     * @return true for a tell
     */
    default boolean isTell() {
        return false;
    }
}
