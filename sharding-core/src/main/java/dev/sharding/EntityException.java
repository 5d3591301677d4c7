package dev.sharding;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * An entity's handler (or its creation) threw an exception. It carries the class name and message of the exception
 * thrown where the entity runs, never the exception object itself; the entity stays alive.
 */
public class EntityException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String remoteClassName;

    private final @Nullable String remoteMessage;

    /**
     * Creates the exception.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param remoteClassName the class name of the exception the entity threw
     * @param remoteMessage its message
     */
    public EntityException(String typeName, String entityId, String remoteClassName, @Nullable String remoteMessage) {
        super("Entity [" + typeName + "/" + entityId + "] failed: " + remoteClassName
                + (remoteMessage == null ? "" : ": " + remoteMessage));
        this.remoteClassName = remoteClassName;
        this.remoteMessage = remoteMessage;
    }

    /**
     * The class name of the exception the entity threw.
     *
     * @return the class name
     */
    public String remoteClassName() {
        return remoteClassName;
    }

    /**
     * The message of the exception the entity threw.
     *
     * @return the message, or {@code null} if it had none
     */
    public @Nullable String remoteMessage() {
        return remoteMessage;
    }
}
