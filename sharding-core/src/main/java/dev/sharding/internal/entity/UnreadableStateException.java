package dev.sharding.internal.entity;

import dev.sharding.ShardingException;
import java.io.Serial;

/**
 * An entity's stored state that its state class cannot read (the class changed incompatibly). Unlike a failed read
 * of the store, trying again cannot help until the class reads it again: the entity's messages fail at once, with
 * this reason, rather than wait for a start that cannot succeed.
 */
final class UnreadableStateException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    UnreadableStateException(String message) {
        super(message);
    }

    /** Whether this is the cause of a failure, or among its causes. */
    static boolean isCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnreadableStateException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
