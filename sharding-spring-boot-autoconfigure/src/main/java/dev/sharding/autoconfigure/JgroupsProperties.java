package dev.sharding.autoconfigure;

import dev.sharding.ShardingSettings;
import org.jspecify.annotations.Nullable;

/**
 * Properties of the JGroups transport, under {@code sharding.jgroups}.
 */
public class JgroupsProperties {

    /**
     * Address the built-in TCP stack binds to, and the address other nodes reach this one at.
     */
    private String bindAddress = ShardingSettings.DEFAULT_BIND_ADDRESS;

    /**
     * First port the built-in TCP stack tries; when it is taken the next free one up to bind-port + port-range
     * is used.
     */
    private int bindPort = ShardingSettings.DEFAULT_BIND_PORT;

    /**
     * How many ports above bind-port the built-in TCP stack may take when bind-port is in use.
     */
    private int portRange = ShardingSettings.DEFAULT_PORT_RANGE;

    /**
     * Members to discover at startup with the built-in TCP stack, as comma-separated "host[port]" or
     * "host[first..last]" entries.
     */
    private String initialHosts = ShardingSettings.DEFAULT_INITIAL_HOSTS;

    /**
     * JGroups stack XML, as a file path or class path resource, replacing the built-in TCP stack. When set, the
     * other jgroups properties are not used.
     */
    private @Nullable String config;

    /**
     * The bind address.
     *
     * @return the address
     */
    public String getBindAddress() {
        return this.bindAddress;
    }

    /**
     * Sets the bind address.
     *
     * @param bindAddress the address
     */
    public void setBindAddress(String bindAddress) {
        this.bindAddress = bindAddress;
    }

    /**
     * The first bind port.
     *
     * @return the port
     */
    public int getBindPort() {
        return this.bindPort;
    }

    /**
     * Sets the first bind port.
     *
     * @param bindPort the port
     */
    public void setBindPort(int bindPort) {
        this.bindPort = bindPort;
    }

    /**
     * The port range.
     *
     * @return how many ports above the bind port may be taken
     */
    public int getPortRange() {
        return this.portRange;
    }

    /**
     * Sets the port range.
     *
     * @param portRange how many ports above the bind port may be taken
     */
    public void setPortRange(int portRange) {
        this.portRange = portRange;
    }

    /**
     * The initial hosts.
     *
     * @return the hosts, as {@code host[port]} or {@code host[first..last]} entries
     */
    public String getInitialHosts() {
        return this.initialHosts;
    }

    /**
     * Sets the initial hosts.
     *
     * @param initialHosts the hosts
     */
    public void setInitialHosts(String initialHosts) {
        this.initialHosts = initialHosts;
    }

    /**
     * The JGroups stack of one's own.
     *
     * @return a file path or class path resource, or {@code null} for the built-in TCP stack
     */
    public @Nullable String getConfig() {
        return this.config;
    }

    /**
     * Sets the JGroups stack of one's own.
     *
     * @param config a file path or class path resource, or {@code null} for the built-in TCP stack
     */
    public void setConfig(@Nullable String config) {
        this.config = config;
    }
}
