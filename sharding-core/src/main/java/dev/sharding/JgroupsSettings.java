package dev.sharding;

import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The JGroups transport: the addresses it binds and discovers, the stack it runs, and for the built-in stack how
 * members are discovered, which ports it opens, how large a frame it accepts and how the cluster's traffic is
 * secured. Part of {@link ShardingSettings}; the properties {@code sharding.jgroups.*}. Start from
 * {@link #defaults()}.
 *
 * @param bindAddress the address the transport binds to
 * @param bindPort the first port the transport tries; the next free one is taken
 * @param portRange how many ports above {@code bindPort} may be taken
 * @param initialHosts the members to discover, as {@code host[port]} or {@code host[first..last]}, comma separated
 * @param config a JGroups stack file or resource replacing the built-in TCP stack, or {@code null}
 * @param discovery how members find each other
 * @param dnsQuery the DNS name whose A records are the members, for {@link Discovery#DNS}
 * @param fdPort the port of the failure-detection socket, or 0 for the transport's port + 100
 * @param maxFrameSize the largest length prefix a TCP connection accepts, in bytes; a longer one closes the
 *     connection before anything is allocated
 * @param secret the shared secret that encrypts and authenticates all cluster traffic, or {@code null}
 * @param keyStore a key store holding the cluster key instead of a secret, or {@code null}
 */
public record JgroupsSettings(
        String bindAddress,
        int bindPort,
        int portRange,
        String initialHosts,
        @Nullable String config,
        Discovery discovery,
        @Nullable String dnsQuery,
        int fdPort,
        int maxFrameSize,
        @Nullable String secret,
        @Nullable KeyStoreSettings keyStore) {

    /** Default bind address. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

    /** Default first bind port. */
    public static final int DEFAULT_BIND_PORT = 7800;

    /** Default port range. */
    public static final int DEFAULT_PORT_RANGE = 10;

    /** Default initial hosts. */
    public static final String DEFAULT_INITIAL_HOSTS = "127.0.0.1[7800..7809]";

    /** Default largest frame: twice the largest frame the built-in stack sends (its fragments are 60 KiB). */
    public static final int DEFAULT_MAX_FRAME_SIZE = 128 * 1024;

    /** The smallest frame limit allowed: a 60 KiB fragment plus its headers must fit. */
    public static final int MIN_MAX_FRAME_SIZE = 64 * 1024;

    /** The shortest secret accepted, in characters. */
    public static final int MIN_SECRET_LENGTH = 16;

    /** The failure-detection port's default offset from the transport's port. */
    public static final int DEFAULT_FD_OFFSET = 100;

    /**
     * Checks the arguments are not null.
     */
    public JgroupsSettings {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(initialHosts, "initialHosts");
        Objects.requireNonNull(discovery, "discovery");
    }

    /**
     * The defaults: the built-in stack on 127.0.0.1 from port 7800, static discovery, the failure-detection port at
     * the transport's + 100, no secret.
     *
     * @return the defaults
     */
    public static JgroupsSettings defaults() {
        return new JgroupsSettings(
                DEFAULT_BIND_ADDRESS,
                DEFAULT_BIND_PORT,
                DEFAULT_PORT_RANGE,
                DEFAULT_INITIAL_HOSTS,
                null,
                Discovery.STATIC,
                null,
                0,
                DEFAULT_MAX_FRAME_SIZE,
                null,
                null);
    }

    /**
     * Whether cluster traffic is sealed, by a secret or a key store.
     *
     * @return whether a cluster key is configured
     */
    public boolean secured() {
        return secret != null || keyStore != null;
    }

    /**
     * Copy with other addresses.
     *
     * @param address the bind address
     * @param port the first bind port
     * @param range how many ports above it may be taken
     * @param hosts the initial hosts
     * @return the copy
     */
    public JgroupsSettings withNetwork(String address, int port, int range, String hosts) {
        return new JgroupsSettings(
                address, port, range, hosts, config, discovery, dnsQuery, fdPort, maxFrameSize, secret, keyStore);
    }

    /**
     * Copy with another stack file or resource.
     *
     * @param value the stack, or {@code null} for the built-in TCP stack
     * @return the copy
     */
    public JgroupsSettings withConfig(@Nullable String value) {
        return new JgroupsSettings(
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                value,
                discovery,
                dnsQuery,
                fdPort,
                maxFrameSize,
                secret,
                keyStore);
    }

    /**
     * Copy with another discovery.
     *
     * @param value how members find each other
     * @param query the DNS query, for {@link Discovery#DNS}
     * @return the copy
     */
    public JgroupsSettings withDiscovery(Discovery value, @Nullable String query) {
        return new JgroupsSettings(
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                config,
                value,
                query,
                fdPort,
                maxFrameSize,
                secret,
                keyStore);
    }

    /**
     * Copy with another failure-detection port.
     *
     * @param value the port, or 0 for the transport's + 100
     * @return the copy
     */
    public JgroupsSettings withFdPort(int value) {
        return new JgroupsSettings(
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                config,
                discovery,
                dnsQuery,
                value,
                maxFrameSize,
                secret,
                keyStore);
    }

    /**
     * Copy with another frame limit.
     *
     * @param value the largest frame in bytes
     * @return the copy
     */
    public JgroupsSettings withMaxFrameSize(int value) {
        return new JgroupsSettings(
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                config,
                discovery,
                dnsQuery,
                fdPort,
                value,
                secret,
                keyStore);
    }

    /**
     * Copy with another secret.
     *
     * @param value the secret, or {@code null} for none
     * @return the copy
     */
    public JgroupsSettings withSecret(@Nullable String value) {
        return new JgroupsSettings(
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                config,
                discovery,
                dnsQuery,
                fdPort,
                maxFrameSize,
                value,
                keyStore);
    }

    /**
     * Copy with another key store.
     *
     * @param value the key store, or {@code null} for none
     * @return the copy
     */
    public JgroupsSettings withKeyStore(@Nullable KeyStoreSettings value) {
        return new JgroupsSettings(
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                config,
                discovery,
                dnsQuery,
                fdPort,
                maxFrameSize,
                secret,
                value);
    }

    /**
     * Checks these settings.
     *
     * @throws IllegalArgumentException naming the first invalid setting, its value and the rule
     */
    void validate() {
        SettingsValidation.require(!bindAddress.isBlank(), "jgroups.bind-address", bindAddress, "must not be blank");
        SettingsValidation.require(
                bindPort > 0 && bindPort < 65536, "jgroups.bind-port", bindPort, "must be a port (1-65535)");
        SettingsValidation.require(
                portRange >= 0 && bindPort + portRange < 65536,
                "jgroups.port-range",
                portRange,
                "must be at least 0 and keep bind-port + port-range under 65536");
        SettingsValidation.require(!initialHosts.isBlank(), "jgroups.initial-hosts", initialHosts, "must not be blank");
        if (discovery == Discovery.DNS && (dnsQuery == null || dnsQuery.isBlank())) {
            throw invalid("jgroups.dns-query", dnsQuery, "must name the headless service when discovery is dns");
        }
        if (fdPort != 0 && (fdPort < 1 || fdPort > 65535 || fdPort == bindPort)) {
            throw invalid(
                    "jgroups.fd-port",
                    fdPort,
                    "must be 0 (bind-port + 100) or a port (1-65535) other than" + " bind-port");
        }
        if (maxFrameSize < MIN_MAX_FRAME_SIZE) {
            throw invalid(
                    "jgroups.max-frame-size",
                    maxFrameSize,
                    "must be at least " + MIN_MAX_FRAME_SIZE + " bytes, larger than the stack's 60 KiB fragments");
        }
        if (secret != null && secret.length() < MIN_SECRET_LENGTH) {
            throw invalid(
                    "jgroups.secret",
                    HIDDEN,
                    "must be at least " + MIN_SECRET_LENGTH + " characters (it has " + secret.length() + ")");
        }
        if (secret != null && keyStore != null) {
            throw invalid(
                    "jgroups.secret",
                    HIDDEN,
                    "sharding.jgroups.secret and sharding.jgroups.key-store.path:" + " set one of them, not both");
        }
        if (keyStore != null) {
            keyStore.validate();
        }
    }

    /** How a secret appears in messages. */
    private static final String HIDDEN = "******";

    private static InvalidSettingException invalid(String name, @Nullable Object value, String rule) {
        return new InvalidSettingException(name, value, rule);
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return "JgroupsSettings[bindAddress=" + bindAddress + ", bindPort=" + bindPort + ", portRange=" + portRange
                + ", initialHosts=" + initialHosts + ", config=" + config + ", discovery=" + discovery + ", dnsQuery="
                + dnsQuery + ", fdPort=" + fdPort
                + ", maxFrameSize=" + maxFrameSize + ", secret=" + (secret == null ? "none" : "******")
                + ", keyStore=" + keyStore + "]";
    }

    /**
     * How members find each other.
     */
    public enum Discovery {
        /** A list of hosts and ports, {@code initial-hosts}. */
        STATIC,
        /** A table in the store's database, where each member writes its address (JGroups' JDBC_PING2). */
        JDBC,
        /** The A records of a DNS name, such as a Kubernetes headless service (JGroups' DNS_PING). */
        DNS;

        /**
         * The value as written in properties.
         *
         * @return the lower-case name
         */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A key store holding the cluster key: a secret-key entry (AES, 128 or 256 bits) in a PKCS12 or JCEKS file.
     *
     * @param path the file
     * @param password the store's password, also the entry's
     * @param alias the entry
     * @param type the store type, PKCS12 or JCEKS
     */
    public record KeyStoreSettings(String path, String password, String alias, String type) {

        /**
         * Checks the arguments are not null.
         */
        public KeyStoreSettings {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(password, "password");
            Objects.requireNonNull(alias, "alias");
            Objects.requireNonNull(type, "type");
        }

        void validate() {
            if (path.isBlank()) {
                throw invalid("jgroups.key-store.path", path, "must not be blank");
            }
            if (alias.isBlank()) {
                throw invalid("jgroups.key-store.alias", alias, "must not be blank");
            }
        }

        /** Never prints the password. */
        @Override
        public String toString() {
            return "KeyStoreSettings[path=" + path + ", alias=" + alias + ", type=" + type + "]";
        }
    }
}
