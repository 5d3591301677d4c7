package dev.sharding.autoconfigure;

import java.time.Duration;

/**
 * The live dashboard page, bound from {@code sharding.dashboard.*}.
 */
public class DashboardProperties {

    /**
     * Whether to serve the live dashboard at /sharding-dashboard/ in a servlet web application. It reads the sharding
     * actuator endpoint, which must be exposed over HTTP, and shows the members, the shards of each, the entity
     * counts, the handoffs in progress and the recent rebalance rounds.
     */
    private boolean enabled = false;

    /**
     * How often the dashboard page reads the sharding endpoint again. Each read asks every member for its regions.
     */
    private Duration refreshInterval = Duration.ofSeconds(1);

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getRefreshInterval() {
        return this.refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }
}
