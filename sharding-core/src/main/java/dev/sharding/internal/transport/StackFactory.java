package dev.sharding.internal.transport;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.jgroups.JChannel;
import org.jgroups.conf.ConfiguratorFactory;
import org.jgroups.conf.ProtocolConfiguration;
import org.jgroups.conf.ProtocolStackConfigurator;
import org.jgroups.protocols.BasicTCP;
import org.jgroups.protocols.Discovery;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.JDBC_PING2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.Util;
import org.jspecify.annotations.Nullable;

/**
 * Builds a node's channel: the built-in TCP stack filled in from the settings (bind address, ports, discovery,
 * frame limit), or a stack of one's own; then the {@link ClusterGuard} above discovery, the {@link DeliveryRelay}
 * directly above the transport and {@link BehindReports} directly below GMS, in every stack. FD_SOCK2 is replaced by
 * {@link BoundedFdSock} wherever a stack names it, so that its port has a frame limit too.
 */
final class StackFactory {

    private static final String DEFAULT_STACK = "dev/sharding/internal/transport/tcp.xml";

    /** JGroups' bind address keywords, as {@code bind_addr} takes them. */
    private static final List<String> KEYWORDS =
            List.of("GLOBAL", "SITE_LOCAL", "LINK_LOCAL", "NON_LOOPBACK", "LOOPBACK");

    private static final List<String> PREFIXES =
            List.of("match-interface:", "match-address:", "match-host:", "custom:");

    private StackFactory() {}

    /**
     * Builds this node's channel and names it: with a stack of one's own, or the built-in one on the first free port
     * from the settings; the name is the configured one, else the bind address and port, else a random one.
     *
     * @param settings the settings
     * @param jdbc where JDBC discovery keeps its table, or {@code null}
     * @param guard the cluster's guard
     * @return the channel, not connected
     * @throws Exception if the stack cannot be built
     */
    static JChannel named(ShardingSettings settings, @Nullable JdbcDiscovery jdbc, ClusterGuard guard)
            throws Exception {
        String name = settings.nodeName();
        JChannel ch;
        if (settings.jgroups().config() != null) {
            ch = channel(settings, 0, InetAddress.getLoopbackAddress(), jdbc, guard);
        } else {
            InetAddress address = bindAddress(settings.jgroups().bindAddress());
            int port = firstFreePort(
                    address, settings.jgroups().bindPort(), settings.jgroups().portRange());
            ch = channel(settings, port, address, jdbc, guard);
            InitialHosts.warnIfNotListed(settings, port);
            if (name == null) {
                name = address.getHostAddress() + ":" + port;
            }
        }
        if (name == null) {
            name = "node-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        }
        ch.name(name);
        return ch;
    }

    /**
     * The channel of a node, not connected, with the guard and the relay in place.
     *
     * @param settings the settings
     * @param port the port the built-in stack binds to (ignored for a stack of one's own)
     * @param address the resolved bind address (ignored for a stack of one's own)
     * @param jdbc where JDBC discovery keeps its table, or {@code null}
     * @param guard the guard to insert
     * @return the channel
     * @throws Exception if JGroups refuses the stack
     */
    static JChannel channel(
            ShardingSettings settings, int port, InetAddress address, @Nullable JdbcDiscovery jdbc, ClusterGuard guard)
            throws Exception {
        ProtocolStackConfigurator base = settings.jgroups().config() != null
                ? ConfiguratorFactory.getStackConfigurator(settings.jgroups().config())
                : ConfiguratorFactory.getStackConfigurator(defaultStack(settings, port, address, jdbc));
        JChannel ch = new JChannel(new Hooks(base, settings.jgroups().maxFrameSize(), jdbc));
        ProtocolStack stack = ch.getProtocolStack();
        Protocol below = stack.getTransport();
        for (Protocol p = stack.getTransport(); p != null; p = p.getUpProtocol()) {
            if (p instanceof Discovery) {
                below = p;
                break;
            }
        }
        guard.setProtocolStack(stack);
        stack.insertProtocolInStack(guard, below, ProtocolStack.Position.ABOVE);
        DeliveryRelay relay = new DeliveryRelay(settings.backpressure().maxQueuedBytes());
        relay.setProtocolStack(stack);
        stack.insertProtocolInStack(relay, stack.getTransport(), ProtocolStack.Position.ABOVE);
        MemberAddressPin pin = new MemberAddressPin();
        pin.setProtocolStack(stack);
        stack.insertProtocolInStack(pin, stack.getTransport(), ProtocolStack.Position.ABOVE);
        Protocol gms = stack.findProtocol(GMS.class);
        if (gms != null) {
            BehindReports reports = new BehindReports();
            reports.setProtocolStack(stack);
            stack.insertProtocolInStack(reports, gms, ProtocolStack.Position.BELOW);
            ReportingFdAll3 fd = ReportingFdAll3.replaceIn(stack);
            if (fd != null) {
                fd.listener(reports::cannotHear);
            }
        }
        return ch;
    }

    static InputStream defaultStack(
            ShardingSettings settings, int port, InetAddress address, @Nullable JdbcDiscovery jdbc) throws IOException {
        String template;
        try (InputStream in = StackFactory.class.getClassLoader().getResourceAsStream(DEFAULT_STACK)) {
            if (in == null) {
                throw new IOException("Missing " + DEFAULT_STACK);
            }
            template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        JgroupsSettings jg = settings.jgroups();
        int range =
                Math.max(0, settings.jgroups().bindPort() + settings.jgroups().portRange() - port);
        int fdOffset = jg.fdPort() == 0 ? JgroupsSettings.DEFAULT_FD_OFFSET : jg.fdPort() - port;
        String xml = template.replace("@DISCOVERY@", discovery(settings, jdbc))
                .replace("@BIND_ADDR@", xmlAttr(address.getHostAddress()))
                .replace("@BIND_PORT@", Integer.toString(port))
                .replace("@PORT_RANGE@", Integer.toString(range))
                .replace("@FD_OFFSET@", Integer.toString(fdOffset))
                .replace("@MAX_LENGTH@", Integer.toString(jg.maxFrameSize()));
        return new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8));
    }

    private static String discovery(ShardingSettings settings, @Nullable JdbcDiscovery jdbc) {
        JgroupsSettings jg = settings.jgroups();
        return switch (jg.discovery()) {
            case STATIC ->
                "<TCPPING async_discovery=\"true\" return_entire_cache=\"false\" port_range=\"0\"" + " initial_hosts=\""
                        + xmlAttr(InitialHosts.expand(settings.jgroups().initialHosts())) + "\"/>";
            case JDBC -> {
                if (jdbc == null) {
                    throw new ShardingException("Invalid setting sharding.jgroups.discovery=jdbc: it needs the JDBC"
                            + " store (sharding.store.type=jdbc), whose database keeps the discovery table");
                }
                yield "<JDBC_PING2 remove_all_data_on_view_change=\"true\" register_shutdown_hook=\"false\" "
                        + jdbc.attributes() + "/>";
            }
            case DNS ->
                "<dns.DNS_PING dns_record_type=\"A\" dns_query=\"" + xmlAttr(String.valueOf(jg.dnsQuery())) + "\"/>";
        };
    }

    private static String xmlAttr(String value) {
        return value.replace("&", "&amp;")
                .replace("\"", "&quot;")
                .replace("<", "&lt;")
                .replace(">", "&gt;");
    }

    /**
     * The address the bind-address setting names: an address, a host name, or one of JGroups' keywords
     * ({@code SITE_LOCAL}, {@code GLOBAL}, {@code match-interface:eth.*}, ...).
     *
     * @param value the setting
     * @return an address of this machine
     * @throws ShardingException naming the setting when it names no address of this machine
     */
    static InetAddress bindAddress(String value) {
        String v = value.trim();
        InetAddress address;
        if (KEYWORDS.contains(v.toUpperCase(Locale.ROOT))
                || PREFIXES.stream().anyMatch(p -> v.toLowerCase(Locale.ROOT).startsWith(p))) {
            try {
                address = Util.getAddress(v, Util.getIpStackType());
            } catch (Exception e) {
                address = null;
            }
            if (address == null) {
                throw new ShardingException("Invalid setting sharding.jgroups.bind-address=" + value
                        + ": no address of this machine matches it");
            }
            return address;
        }
        try {
            address = InetAddress.getByName(v);
        } catch (UnknownHostException e) {
            throw new ShardingException("Invalid setting sharding.jgroups.bind-address=" + value + ": unknown host");
        }
        try {
            if (!address.isAnyLocalAddress() && NetworkInterface.getByInetAddress(address) == null) {
                throw new ShardingException(
                        "Invalid setting sharding.jgroups.bind-address=" + value + ": not an address of this machine");
            }
        } catch (SocketException e) {
            throw new ShardingException("Invalid setting sharding.jgroups.bind-address=" + value + ": " + e, e);
        }
        return address;
    }

    /**
     * The first port from {@code first} to {@code first + range} that nobody listens on at the address. JGroups
     * would also move on to a free port, but the node name must be known before connecting.
     */
    static int firstFreePort(InetAddress address, int first, int range) {
        for (int port = first; port <= first + range; port++) {
            try (ServerSocket s = new ServerSocket()) {
                // as JGroups binds it: a port whose connections from a stopped run wait out TIME_WAIT is free, so
                // that a node restarted at once takes its own port, the one the others' initial hosts list
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(address, port));
                return port;
            } catch (IOException taken) {
                // try the next port
            }
        }
        throw new ShardingException("No free port from " + first + " to " + (first + range) + " on "
                + address.getHostAddress() + " (settings jgroups.bind-port and jgroups.port-range)");
    }

    /**
     * Sets what XML cannot carry on the protocols JGroups creates, before their {@code init()}: the discovery
     * table's data source, and the frame limit on a TCP transport that sets none; and turns JGroups' diagnostics off
     * in a stack that does not set them.
     */
    /** The transport's attribute that turns JGroups' diagnostics on or off. */
    private static final String DIAGNOSTICS = "diag.enabled";

    /** Its name before JGroups 5. */
    private static final String OLD_DIAGNOSTICS = "enable_diagnostics";

    private record Hooks(
            ProtocolStackConfigurator base,
            int maxFrameSize,
            @Nullable JdbcDiscovery jdbc) implements ProtocolStackConfigurator {

        @Override
        public String getProtocolStackString() {
            return base.getProtocolStackString();
        }

        @Override
        public List<ProtocolConfiguration> getProtocolStack() {
            List<ProtocolConfiguration> configs = new java.util.ArrayList<>(base.getProtocolStack());
            configs.replaceAll(Hooks::boundedFdSock);
            if (!configs.isEmpty()) {
                configs.set(0, withoutDiagnostics(configs.get(0)));
            }
            return configs;
        }

        /**
         * The transport (the first protocol) with JGroups' diagnostics off unless the stack turns them on itself:
         * they answer anyone on the network ({@code probe.sh}), below the guard and without the secret, and they are
         * on by default in a stack of one's own.
         */
        private static ProtocolConfiguration withoutDiagnostics(ProtocolConfiguration transport) {
            java.util.Map<String, String> properties = transport.getProperties();
            if (properties.containsKey(DIAGNOSTICS) || properties.containsKey(OLD_DIAGNOSTICS)) {
                return transport;
            }
            java.util.Map<String, String> off = new java.util.HashMap<>(properties);
            off.put(DIAGNOSTICS, "false");
            ProtocolConfiguration quiet =
                    new ProtocolConfiguration(transport.getProtocolName(), off, transport.getClassLoader());
            if (transport.getSubtrees() != null) {
                transport.getSubtrees().forEach(quiet::addSubtree);
            }
            return quiet;
        }

        /** FD_SOCK2 as {@link BoundedFdSock}, with the same properties. */
        private static ProtocolConfiguration boundedFdSock(ProtocolConfiguration config) {
            String name = config.getProtocolName();
            if (!name.equals("FD_SOCK2") && !name.equals(FD_SOCK2.class.getName())) {
                return config;
            }
            ProtocolConfiguration bounded = new ProtocolConfiguration(
                    BoundedFdSock.class.getName(),
                    new java.util.HashMap<>(config.getProperties()),
                    BoundedFdSock.class.getClassLoader());
            if (config.getSubtrees() != null) {
                config.getSubtrees().forEach(bounded::addSubtree);
            }
            return bounded;
        }

        @Override
        public void afterCreation(Protocol prot) throws Exception {
            base.afterCreation(prot);
            if (prot instanceof BasicTCP tcp && tcp.getMaxLength() <= 0) {
                tcp.setMaxLength(maxFrameSize);
            }
            if (prot instanceof JDBC_PING2 ping
                    && jdbc != null
                    && ping.getDataSource() == null
                    && ping.getConnectionUrl() == null
                    && ping.getDatasourceJndiName() == null
                    && ping.getDatasourceInjecterClass() == null) {
                ping.setDataSource(jdbc.dataSource());
            }
        }
    }

    /**
     * How long a stack's failure detection takes to suspect a hung or cut-off member and verify it: the FD_ALL
     * timeout plus the VERIFY_SUSPECT one.
     *
     * @param stack the stack
     * @return the time, or -1 when the stack has no FD_ALL protocol
     */
    static long failureDetectionNanos(org.jgroups.stack.ProtocolStack stack) {
        long millis = 0;
        boolean found = false;
        for (org.jgroups.stack.Protocol p : stack.getProtocols()) {
            if (p instanceof org.jgroups.protocols.FD_ALL3 fd) {
                millis += fd.getTimeout();
                found = true;
            } else if (p instanceof org.jgroups.protocols.FD_ALL2 fd) {
                millis += fd.getTimeout();
                found = true;
            } else if (p instanceof org.jgroups.protocols.FD_ALL fd) {
                millis += fd.getTimeout();
                found = true;
            } else if (p instanceof org.jgroups.protocols.VERIFY_SUSPECT2 vs) {
                millis += vs.getTimeout();
            } else if (p instanceof org.jgroups.protocols.VERIFY_SUSPECT vs) {
                millis += vs.getTimeout();
            }
        }
        return found ? millis * 1_000_000L : -1;
    }
}
