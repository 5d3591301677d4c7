package dev.sharding.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.boot.test.ShardingTestProperties;
import dev.sharding.spi.ShardingStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Where a node keeps its store: in the database of {@code --spring.datasource.url} when given (here an H2 server,
 * as nodes on several hosts would share it), else in the embedded H2 file under the working folder's data/.
 */
class DatabaseUrlTest {

    private final JsonHttp http = new JsonHttp(Duration.ofSeconds(20));

    @TempDir
    Path dir;

    private static String[] node(String... more) {
        String[] common = {
            "--server.port=0",
            "--sharding.jgroups.config=" + ShardingTestProperties.IN_JVM_STACK,
            "--sharding.cluster-name=sample-url-" + UUID.randomUUID(),
            "--spring.main.banner-mode=off"
        };
        String[] all = new String[common.length + more.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }

    private void deposit(ConfigurableApplicationContext context, String id, long amount) {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        JsonHttp.Answer a = http.postJson(
                "http://127.0.0.1:" + port + "/accounts/" + id + "/deposit", "{\"amount\": " + amount + "}");
        assertThat(a.status()).as("%s", a).isEqualTo(200);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void keepsTheStoreInTheDatabaseOfTheGivenUrl() throws Exception {
        Server server = Server.createTcpServer(
                        "-tcpPort", String.valueOf(freePort()), "-ifNotExists", "-baseDir", this.dir.toString())
                .start();
        String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/shared";
        try {
            try (ConfigurableApplicationContext node = SpringApplication.run(
                    SampleApplication.class,
                    node(
                            "--spring.datasource.url=" + url,
                            "--spring.datasource.username=sa",
                            "--sharding.store.embedded-path=" + this.dir.resolve("unused/sharding")))) {
                assertThat(node.getBeansOfType(DataSource.class)).hasSize(1);
                deposit(node, "alice", 12);
            }
            try (Connection c = DriverManager.getConnection(url, "sa", "");
                    PreparedStatement ps = c.prepareStatement(
                            "SELECT COUNT(*) FROM sharding_entity_state WHERE type_name = 'account' AND entity_id = ?")) {
                ps.setString(1, "alice");
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1))
                            .as("alice's state in the server's database")
                            .isEqualTo(1);
                }
            }
            assertThat(this.dir.resolve("unused")).as("no embedded database").doesNotExist();
        } finally {
            server.stop();
        }
    }

    @Test
    void keepsTheStoreInTheEmbeddedFileWithoutUrl() {
        Path db = this.dir.resolve("data").resolve("sharding");
        try (ConfigurableApplicationContext node =
                SpringApplication.run(SampleApplication.class, node("--sharding.store.embedded-path=" + db))) {
            assertThat(node.getBeansOfType(DataSource.class))
                    .as("no DataSource, no in-memory database")
                    .isEmpty();
            assertThat(node.getBean(ShardingStore.class).getClass().getSimpleName())
                    .isEqualTo("JdbcShardingStore");
            deposit(node, "bob", 3);
        }
        assertThat(Files.exists(db.resolveSibling("sharding.mv.db"))).isTrue();
    }
}
