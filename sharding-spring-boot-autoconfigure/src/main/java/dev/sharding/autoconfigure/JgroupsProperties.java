package dev.sharding.autoconfigure;

import dev.sharding.JgroupsSettings;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;

/**
 * Properties of the JGroups transport, under {@code sharding.jgroups}.
 */
public class JgroupsProperties {

    /**
     * Address the built-in TCP stack binds to, and the address other nodes reach this one at: an address, a host
     * name, or one of JGroups' keywords such as SITE_LOCAL, GLOBAL, NON_LOOPBACK or "match-interface:eth.*".
     */
    private String bindAddress = JgroupsSettings.DEFAULT_BIND_ADDRESS;

    /**
     * First port the built-in TCP stack tries; when it is taken the next free one up to bind-port + port-range
     * is used.
     */
    private int bindPort = JgroupsSettings.DEFAULT_BIND_PORT;

    /**
     * How many ports above bind-port the built-in TCP stack may take when bind-port is in use.
     */
    private int portRange = JgroupsSettings.DEFAULT_PORT_RANGE;

    /**
     * Members to discover at startup with the built-in TCP stack, as comma-separated "host[port]" or
     * "host[first..last]" entries.
     */
    private String initialHosts = JgroupsSettings.DEFAULT_INITIAL_HOSTS;

    /**
     * JGroups stack XML, as a file path or class path resource, replacing the built-in TCP stack. When set, the
     * other jgroups properties are not used.
     */
    private @Nullable String config;

    /**
     * How nodes find each other with the built-in TCP stack: "static" (the initial-hosts list), "jdbc" (a table in
     * the store's database, so that nodes sharing a database need no host list) or "dns" (the A records of dns-query,
     * such as a Kubernetes headless service).
     */
    private JgroupsSettings.Discovery discovery = JgroupsSettings.Discovery.STATIC;

    /**
     * DNS name whose A records are the cluster's nodes, for discovery "dns"; on Kubernetes the headless service,
     * for example "sharding.my-namespace.svc.cluster.local".
     */
    private @Nullable String dnsQuery;

    /**
     * Port of the failure-detection socket of the built-in TCP stack; 0 for the transport's port + 100.
     */
    private int fdPort;

    /**
     * Largest length prefix a cluster TCP connection accepts; a longer one closes the connection before anything is
     * allocated. Must exceed the largest frame the stack sends (60 KiB fragments and their headers).
     */
    private DataSize maxFrameSize = DataSize.ofBytes(JgroupsSettings.DEFAULT_MAX_FRAME_SIZE);

    /**
     * Shared secret of the cluster, at least 16 characters. When set, all cluster traffic is encrypted and
     * authenticated with a key derived from it, and a node with another secret or none cannot join.
     */
    private @Nullable String secret;

    /**
     * Key store holding the cluster key, instead of a secret.
     */
    @NestedConfigurationProperty
    private final KeyStoreProperties keyStore = new KeyStoreProperties();

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

    /**
     * How nodes find each other.
     *
     * @return the discovery
     */
    public JgroupsSettings.Discovery getDiscovery() {
        return this.discovery;
    }

    /**
     * Sets how nodes find each other.
     *
     * @param discovery the discovery
     */
    public void setDiscovery(JgroupsSettings.Discovery discovery) {
        this.discovery = discovery;
    }

    /**
     * The DNS query.
     *
     * @return the name, or {@code null}
     */
    public @Nullable String getDnsQuery() {
        return this.dnsQuery;
    }

    /**
     * Sets the DNS query.
     *
     * @param dnsQuery the name
     */
    public void setDnsQuery(@Nullable String dnsQuery) {
        this.dnsQuery = dnsQuery;
    }

    /**
     * The failure-detection port.
     *
     * @return the port, or 0 for the transport's port + 100
     */
    public int getFdPort() {
        return this.fdPort;
    }

    /**
     * Sets the failure-detection port.
     *
     * @param fdPort the port, or 0 for the transport's port + 100
     */
    public void setFdPort(int fdPort) {
        this.fdPort = fdPort;
    }

    /**
     * The largest frame accepted.
     *
     * @return the size
     */
    public DataSize getMaxFrameSize() {
        return this.maxFrameSize;
    }

    /**
     * Sets the largest frame accepted.
     *
     * @param maxFrameSize the size
     */
    public void setMaxFrameSize(DataSize maxFrameSize) {
        this.maxFrameSize = maxFrameSize;
    }

    /**
     * The cluster secret.
     *
     * @return the secret, or {@code null}
     */
    public @Nullable String getSecret() {
        return this.secret;
    }

    /**
     * Sets the cluster secret.
     *
     * @param secret the secret, or {@code null} for none
     */
    public void setSecret(@Nullable String secret) {
        this.secret = secret;
    }

    /**
     * The key store properties.
     *
     * @return the properties under {@code sharding.jgroups.key-store}
     */
    public KeyStoreProperties getKeyStore() {
        return this.keyStore;
    }

    /**
     * These properties as core settings.
     *
     * @return the settings
     * @throws IllegalArgumentException when max-frame-size is out of range
     */
    JgroupsSettings toSettings() {
        long frame = this.maxFrameSize.toBytes();
        if (frame > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Invalid setting sharding.jgroups.max-frame-size=" + this.maxFrameSize
                    + ": must be at most " + Integer.MAX_VALUE + " bytes");
        }
        PropertyMapper map = PropertyMapper.get();
        JgroupsSettings settings = JgroupsSettings.defaults()
                .withNetwork(this.bindAddress, this.bindPort, this.portRange, this.initialHosts)
                .withDiscovery(this.discovery, this.dnsQuery);
        settings = map.from(this.config).whenHasText().to(settings, JgroupsSettings::withConfig);
        settings = map.from(this.fdPort).to(settings, JgroupsSettings::withFdPort);
        settings = map.from((int) frame).to(settings, JgroupsSettings::withMaxFrameSize);
        settings = map.from(this.secret).when(StringUtils::hasLength).to(settings, JgroupsSettings::withSecret);
        return map.from(this.keyStore::toSettings).to(settings, JgroupsSettings::withKeyStore);
    }
}
