package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.sample.SampleCluster.Node;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three JVMs of the shipped jar with {@code --sharding.jgroups.discovery=jdbc}, no initial hosts and a cluster secret
 * form one cluster through the database they share (the embedded H2 file of the folder they start from, served by the
 * first of them to the others), and route every account to one home. A fourth JVM with another secret cannot join:
 * it exits, saying why in one line, and the cluster keeps its three members. Two nodes also form one cluster through
 * an H2 server the test starts, named by {@code --spring.datasource.url}, as nodes on several hosts would share a
 * database.
 */
class JdbcDiscoveryProcessIT {

    private static final String SECRET = "--sharding.jgroups.secret=process-test-secret-0123456789";

    private SampleCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The node serving the shared H2 file writes its server address into the lock file; that address is the
     * loopback one, and the kernel lists the port as listening on 127.0.0.1 only.
     */
    private void assertEmbeddedDatabaseListensOnLoopbackOnly() throws Exception {
        java.util.Properties lock = new java.util.Properties();
        try (var in = Files.newInputStream(cluster.logDir().resolve("data/sharding.lock.db"))) {
            lock.load(in);
        }
        String server = lock.getProperty("server");
        assertThat(server).as("server in the H2 lock file").contains(":");
        assertThat(java.net.InetAddress.getByName(server.substring(0, server.indexOf(':')))
                        .isLoopbackAddress())
                .as("server %s in the H2 lock file is a loopback address", server)
                .isTrue();
        int port = Integer.parseInt(server.substring(server.indexOf(':') + 1));
        String hexPort = String.format(":%04X", port);
        List<String> listening = new java.util.ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(java.nio.file.Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 3 && f[1].endsWith(hexPort) && f[3].equals("0A")) { // 0A: LISTEN
                    listening.add(f[1].substring(0, f[1].indexOf(':')));
                }
            }
        }
        // 127.0.0.1 as IPv4, as IPv4-mapped IPv6, and ::1
        assertThat(listening)
                .as("addresses listening on port %d", port)
                .isNotEmpty()
                .allMatch(a -> a.equals("0100007F")
                        || a.equals("0000000000000000FFFF00000100007F")
                        || a.equals("00000000000000000000000001000000"));
    }

    @Test
    void twoNodesWithJdbcDiscoveryFormOneClusterThroughADatabaseServer() throws Exception {
        java.nio.file.Path base = java.nio.file.Files.createTempDirectory("jdbc-discovery-h2-");
        org.h2.tools.Server server = org.h2.tools.Server.createTcpServer(
                        "-tcpPort",
                        String.valueOf(SampleCluster.freePorts(1)[0]),
                        "-ifNotExists",
                        "-baseDir",
                        base.toString())
                .start();
        String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/shared";
        cluster = new SampleCluster("jdbc-discovery-server-it", 2);
        List<Node> nodes = cluster.nodes();
        try {
            for (Node n : nodes) {
                cluster.startWithoutHostList(
                        n,
                        "--sharding.jgroups.discovery=jdbc",
                        SECRET,
                        "--spring.datasource.url=" + url,
                        "--spring.datasource.username=sa");
                if (n == nodes.get(0)) {
                    cluster.awaitCluster(List.of(n));
                }
            }
            cluster.awaitCluster(nodes);
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, "sa", "");
                    java.sql.ResultSet rs =
                            c.createStatement().executeQuery("SELECT COUNT(*) FROM sharding_discovery")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1))
                        .as("rows of the discovery table in the server's database")
                        .isEqualTo(2);
            }
            for (int i = 0; i < 10; i++) {
                JsonHttp.Answer a = SampleCluster.HTTP.postJson(
                        nodes.get(i % 2).url("/accounts/srv-" + i + "/deposit"), "{\"amount\": 1}");
                assertThat(a.status()).as("%s", a).isEqualTo(200);
            }
        } catch (Throwable t) {
            cluster.printLogTails();
            throw t;
        } finally {
            cluster.close();
            cluster = null;
            server.stop();
        }
    }

    @Test
    void threeNodesWithJdbcDiscoveryAndASecretFormOneClusterThroughTheirDatabase() throws Exception {
        cluster = new SampleCluster("jdbc-discovery-it", 4);
        List<Node> nodes = cluster.nodes().subList(0, 3);
        try {
            cluster.startWithoutHostList(nodes.get(0), "--sharding.jgroups.discovery=jdbc", SECRET);
            cluster.awaitCluster(List.of(nodes.get(0)));
            cluster.startWithoutHostList(nodes.get(1), "--sharding.jgroups.discovery=jdbc", SECRET);
            cluster.startWithoutHostList(nodes.get(2), "--sharding.jgroups.discovery=jdbc", SECRET);
            cluster.awaitCluster(nodes);

            Set<String> homes = new HashSet<>();
            for (int i = 0; i < 30; i++) {
                String id = "jdbc-" + i;
                JsonHttp.Answer a = SampleCluster.HTTP.postJson(
                        nodes.get(i % 3).url("/accounts/" + id + "/deposit"), "{\"amount\": 2}");
                assertThat(a.status()).as("deposit into %s: %s", id, a).isEqualTo(200);
                String home = a.body().get("node").asString();
                for (Node asked : nodes) {
                    JsonHttp.Answer b = SampleCluster.HTTP.get(asked.url("/accounts/" + id));
                    assertThat(b.body().get("node").asString())
                            .as("home of %s asked at %s", id, asked.name)
                            .isEqualTo(home);
                    assertThat(b.body().get("balance").longValue()).isEqualTo(2);
                }
                homes.add(home);
            }
            assertThat(homes).as("accounts spread over the nodes").hasSizeGreaterThan(1);
            assertEmbeddedDatabaseListensOnLoopbackOnly();

            Node intruder = cluster.node(3);
            int exit = cluster.runToExit(
                    intruder,
                    SampleCluster.FORMATION,
                    "--sharding.jgroups.discovery=jdbc",
                    "--sharding.jgroups.secret=some-other-secret-9876543210");
            assertThat(exit).as("exit status of the node with another secret").isNotZero();
            String log = Files.readString(intruder.log, StandardCharsets.UTF_8);
            assertThat(log).contains("Cannot join cluster").contains("different sharding.jgroups.secret");
            for (Node n : nodes) {
                assertThat(SampleCluster.membersSeenBy(n)).containsExactlyInAnyOrder("n1", "n2", "n3");
            }
        } catch (Throwable t) {
            cluster.printLogTails();
            throw t;
        }
    }
}
