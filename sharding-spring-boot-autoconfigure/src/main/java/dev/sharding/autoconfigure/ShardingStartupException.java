package dev.sharding.autoconfigure;

import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import java.io.Serial;

/**
 * The auto-configured node could not join its cluster when the application context started, typically because of its
 * JGroups configuration. Carries the settings that were used, so that the failure can be explained in terms of the
 * {@code sharding.*} properties.
 */
public class ShardingStartupException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient ShardingSettings settings;

    /**
     * Creates the exception.
     *
     * @param settings the settings the node was started with
     * @param cause why it could not join
     */
    public ShardingStartupException(ShardingSettings settings, Throwable cause) {
        super("Sharding node could not join cluster '" + settings.clusterName() + "': " + cause.getMessage(), cause);
        this.settings = settings;
    }

    /**
     * The settings the node was started with.
     *
     * @return the settings
     */
    public ShardingSettings settings() {
        return this.settings;
    }
}
