package dev.sharding.autoconfigure.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.EntityType;
import dev.sharding.JgroupsSettings;
import dev.sharding.ShardingNode;
import dev.sharding.ShardingSettings;
import dev.sharding.autoconfigure.bank.Account;
import dev.sharding.autoconfigure.bank.BankApplication;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The test configuration of docs/getting-started.md ("Testing your entities"), as a user copies it: a test node
 * keeps to its own JVM, so it does not join a cluster running on the machine (a plain test with no overrides joined
 * whatever ran on the default ports, with another database), and two test nodes in one JVM form a cluster.
 */
class TestingYourEntitiesTests {

    private static final Pattern PROPERTIES =
            Pattern.compile("```properties\\n# test configuration\\n(.*?)```", Pattern.DOTALL);

    /** The properties block of the guide's testing section. */
    private static List<String> documentedTestProperties() throws IOException {
        String guide = Files.readString(Path.of("../docs/getting-started.md"));
        Matcher m = PROPERTIES.matcher(guide);
        assertThat(m.find())
                .as("a ```properties block starting '# test configuration' in getting-started.md")
                .isTrue();
        return m.group(1)
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
    }

    private static ConfigurableApplicationContext testNode(List<String> properties, String... more) {
        return new SpringApplicationBuilder(BankApplication.class)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(properties.toArray(String[]::new))
                .run(more);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aTestNodeDoesNotJoinAClusterRunningOnTheMachine() throws Exception {
        int port = freePort();
        ShardingSettings running = ShardingSettings.defaults()
                .withJgroups(JgroupsSettings.defaults().withNetwork("127.0.0.1", port, 0, "127.0.0.1[" + port + "]"));
        try (ShardingNode local = ShardingNode.builder(running)
                .entityType(EntityType.of(Account.class, c -> {
                    throw new IllegalStateException("not used");
                }))
                .build()) {
            local.start();
            // what the defaults would do if that cluster ran on the default ports: find it through initial-hosts
            try (ConfigurableApplicationContext test =
                    testNode(documentedTestProperties(), "--sharding.jgroups.initial-hosts=127.0.0.1[" + port + "]")) {
                ShardingNode node = test.getBean(ShardingNode.class);
                assertThat(node.region(Account.class)
                                .ask("a-1", new Account.Deposit(5), Account.Balance.class)
                                .get(30, TimeUnit.SECONDS)
                                .balance())
                        .isEqualTo(5);
                // joining happens while the node starts: by now a shared view would have been installed
                org.awaitility.Awaitility.await("the test node's first view")
                        .atMost(java.time.Duration.ofSeconds(30))
                        .until(() -> !node.members().isEmpty());
                assertThat(node.members()).as("the test node's cluster").hasSize(1);
                assertThat(local.members()).as("the running cluster").hasSize(1);
            }
        }
    }

    @Test
    void twoTestNodesInOneJvmFormACluster() throws Exception {
        List<String> properties = documentedTestProperties();
        String cluster = "--sharding.cluster-name=two-nodes-" + System.nanoTime();
        try (ConfigurableApplicationContext first = testNode(properties, cluster);
                ConfigurableApplicationContext second = testNode(properties, cluster)) {
            ShardingNode a = first.getBean(ShardingNode.class);
            ShardingNode b = second.getBean(ShardingNode.class);
            org.awaitility.Awaitility.await("two members")
                    .atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> a.members().size() == 2 && b.members().size() == 2);
            assertThat(a.region(Account.class)
                            .ask("shared", new Account.Deposit(2), Account.Balance.class)
                            .get(30, TimeUnit.SECONDS)
                            .balance())
                    .isEqualTo(2);
            assertThat(b.region(Account.class)
                            .ask("shared", new Account.Deposit(3), Account.Balance.class)
                            .get(30, TimeUnit.SECONDS)
                            .balance())
                    .isEqualTo(5);
        }
    }
}
