package dev.sharding.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingException;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.test.Counter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import org.h2.jdbcx.JdbcDataSource;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.JDBC_PING2;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.dns.DNS_PING;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The discovery choices and addresses of the built-in TCP stack, on loopback: {@code jdbc} (nodes that share a
 * database find each other with no host list), {@code dns} (the A records of a name: here {@code localhost}, through
 * the system resolver, as a Kubernetes headless service would give the pods' addresses), the failure-detection port
 * of its own, and JGroups' bind-address keywords.
 */
class DiscoveryClusterTest {

    private final List<ShardingNode> nodes = new ArrayList<>();

    private final Map<String, JChannel> channels = new HashMap<>();

    @AfterEach
    void stop() {
        nodes.forEach(ShardingNode::close);
    }

    private ShardingNode start(ShardingSettings settings, UnaryOperator<ShardingNode.Builder> more) {
        ShardingNode node = more.apply(ShardingNode.builder(settings)
                        .entityType(Counter.type())
                        .channelCustomizer(ch -> channels.put(settings.nodeName(), ch)))
                .build();
        node.start();
        nodes.add(node);
        return node;
    }

    private static ShardingSettings settings(
            String cluster, String name, int port, int range, UnaryOperator<JgroupsSettings> jgroups) {
        ShardingSettings s = ShardingSettings.defaults()
                .withClusterName(cluster)
                .withNodeName(name)
                .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", port, range, "127.0.0.1[1]"));
        return s.withJgroups(jgroups.apply(s.jgroups()));
    }

    @Test
    void nodesSharingADatabaseFindEachOtherWithNoHostList() throws Exception {
        JdbcDataSource db = new JdbcDataSource();
        db.setURL("jdbc:h2:mem:discovery-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        String cluster = "jdbc-" + UUID.randomUUID();
        for (int i = 1; i <= 3; i++) {
            start(
                    settings(
                            cluster,
                            "j" + i,
                            freePort(),
                            0,
                            j -> j.withDiscovery(JgroupsSettings.Discovery.JDBC, null)),
                    b -> b.discoveryDatabase(db, "t_"));
        }
        awaitMembers(3);
        JChannel ch = channels.get("j1");
        assertThat((Object) ch.getProtocolStack().findProtocol(JDBC_PING2.class))
                .isNotNull();
        assertThat((Object) ch.getProtocolStack().findProtocol(TCPPING.class)).isNull();
        try (Connection c = db.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT name FROM t_discovery WHERE cluster = '" + cluster + "'")) {
            List<String> names = new ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            assertThat(names).containsExactlyInAnyOrder("j1", "j2", "j3");
        }
        assertServes();
    }

    @Test
    void jdbcDiscoveryWithoutADatabaseIsRefusedClearly() {
        ShardingNode node = ShardingNode.builder(
                        settings("jdbc-none", "x", 7800, 0, j -> j.withDiscovery(JgroupsSettings.Discovery.JDBC, null)))
                .entityType(Counter.type())
                .build();
        assertThatThrownBy(node::start).hasMessageContaining("sharding.jgroups.discovery=jdbc");
    }

    @Test
    void dnsDiscoveryFindsTheNodesAtTheAddressesOfAName() throws Exception {
        int port = freePortPair();
        String cluster = "dns-" + UUID.randomUUID();
        // the first node on the upper port; the second probes both ports at every address "localhost" resolves to
        start(
                settings(cluster, "d1", port + 1, 0, j -> j.withDiscovery(JgroupsSettings.Discovery.DNS, "localhost")),
                UnaryOperator.identity());
        start(
                settings(cluster, "d2", port, 1, j -> j.withDiscovery(JgroupsSettings.Discovery.DNS, "localhost")),
                UnaryOperator.identity());
        awaitMembers(2);
        DNS_PING dns = channels.get("d2").getProtocolStack().findProtocol(DNS_PING.class);
        assertThat(dns.dnsQuery()).isEqualTo("localhost");
        assertThat(dns.dnsRecordType()).isEqualTo("A");
        assertServes();
    }

    @Test
    void dnsDiscoveryNeedsAQuery() {
        assertThatThrownBy(() -> settings("c", "n", 7800, 0, j -> j.withDiscovery(JgroupsSettings.Discovery.DNS, null))
                        .validate())
                .hasMessageContaining("sharding.jgroups.dns-query");
    }

    @Test
    void theFailureDetectionPortIsASettingOfItsOwn() throws Exception {
        int fd = freePort();
        int port = freePort();
        start(settings("fd-" + UUID.randomUUID(), "f1", port, 0, j -> j.withFdPort(fd)), UnaryOperator.identity());
        FD_SOCK2 fdSock = channels.get("f1").getProtocolStack().findProtocol(FD_SOCK2.class);
        Awaitility.await("FD_SOCK2 listening")
                .atMost(Duration.ofSeconds(10))
                .until(() -> fdSock.getActualBindPort() > 0);
        assertThat(fdSock.getActualBindPort()).isEqualTo(fd);
    }

    @Test
    void bindAddressTakesJGroupsKeywords() throws Exception {
        int port = freePort();
        ShardingSettings s = ShardingSettings.defaults()
                .withClusterName("kw-" + UUID.randomUUID())
                .withJgroups(JgroupsSettings.defaults()
                        .withNetwork("match-interface:lo", port, 0, "127.0.0.1[" + port + "]"));
        ShardingNode node = start(s, UnaryOperator.identity());
        assertThat(node.nodeName()).endsWith(":" + port);
        assertThat(InetAddress.getByName(
                                node.nodeName().substring(0, node.nodeName().lastIndexOf(':')))
                        .isLoopbackAddress())
                .isTrue();

        ShardingNode bad = ShardingNode.builder(ShardingSettings.defaults()
                        .withJgroups(JgroupsSettings.defaults()
                                .withNetwork("match-interface:no-such-nic9", port, 0, "127.0.0.1[" + port + "]")))
                .entityType(Counter.type())
                .build();
        assertThatThrownBy(bad::start)
                .isInstanceOf(ShardingException.class)
                .hasMessageContaining("sharding.jgroups.bind-address=match-interface:no-such-nic9");
    }

    private void awaitMembers(int n) {
        Awaitility.await(n + " members on every node")
                .atMost(Duration.ofSeconds(30))
                .until(() -> nodes.stream().allMatch(x -> x.members().size() == n && x.isRegistered()));
    }

    private void assertServes() throws Exception {
        for (int i = 0; i < 10; i++) {
            Counter.Total t = nodes.get(i % nodes.size())
                    .region(Counter.class)
                    .ask("d-" + i, new Counter.Add(1), Counter.Total.class)
                    .get(10, TimeUnit.SECONDS);
            assertThat(t.total()).isEqualTo(1);
        }
    }

    /** A free port whose failure-detection port (+100) is free too. */
    private static int freePort() throws Exception {
        for (int i = 0; i < 50; i++) {
            int p;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                p = s.getLocalPort();
            }
            if (p + 101 < 65536 && free(p + 100)) {
                return p;
            }
        }
        throw new IllegalStateException("No free port with a free port 100 above it");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (java.io.IOException taken) {
            return false;
        }
    }

    /** A port whose next one is free too, and both failure-detection ports (+100, +101). */
    private static int freePortPair() throws Exception {
        for (int i = 0; i < 50; i++) {
            int p = freePort();
            if (free(p + 1) && free(p + 101)) {
                return p;
            }
        }
        throw new IllegalStateException("No two free consecutive ports");
    }
}
