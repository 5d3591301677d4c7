package dev.sharding.autoconfigure;

/**
 * Observations of asks, tells and their handling, bound from {@code sharding.observation.*}.
 */
public class ObservationProperties {

    /**
     * Whether asks, tells and their handling by entities are Micrometer observations, when the application has an
     * ObservationRegistry: traced across nodes when it also has a tracer, and timed by the observation's own meters.
     * When off, the node traces nothing and spends nothing on it per message.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
