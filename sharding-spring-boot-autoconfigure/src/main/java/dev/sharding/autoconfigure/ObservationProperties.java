package dev.sharding.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Observations of asks, tells and their handling, bound from {@code sharding.observation.*}.
 */
public class ObservationProperties {

    /**
     * Whether asks, tells and their handling by entities are Micrometer observations, when the application has an
     * ObservationRegistry. By default only when the application also has a tracer (Micrometer Tracing with a bridge),
     * so that messages are traced across nodes; true also without a tracer (each message is then an observation that
     * Boot times); false never. When not observed, the node spends nothing on it per message.
     */
    private @Nullable Boolean enabled;

    public @Nullable Boolean getEnabled() {
        return this.enabled;
    }

    public void setEnabled(@Nullable Boolean enabled) {
        this.enabled = enabled;
    }
}
