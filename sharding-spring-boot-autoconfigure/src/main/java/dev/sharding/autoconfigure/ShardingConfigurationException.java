package dev.sharding.autoconfigure;

import dev.sharding.ShardingException;
import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * The application is set up in a way the sharding node cannot run with: an entity class that is not a valid
 * definition, or a store whose database is missing, ambiguous, in memory, unsupported or unreachable. Carries what
 * went wrong and what to do about it, which {@link ShardingConfigurationFailureAnalyzer} reports at startup.
 */
public class ShardingConfigurationException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String description;

    private final String action;

    /**
     * Creates the exception.
     *
     * @param description what is wrong
     * @param action what to do about it
     * @param cause the underlying failure, if any
     */
    public ShardingConfigurationException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.description = description;
        this.action = action;
    }

    /**
     * What is wrong.
     *
     * @return the description
     */
    public String description() {
        return this.description;
    }

    /**
     * What to do about it.
     *
     * @return the action
     */
    public String action() {
        return this.action;
    }
}
