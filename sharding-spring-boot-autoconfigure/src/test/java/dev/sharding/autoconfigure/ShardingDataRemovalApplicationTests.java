package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sharding.ClusterNotStoppedException;
import dev.sharding.ShardingNode;
import dev.sharding.autoconfigure.bank.BankApplication;
import dev.sharding.spi.ShardingStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * An application started with {@code sharding.store.remove-sharding-data=true}, as {@code java -jar app.jar
 * --sharding.store.remove-sharding-data=true} runs it: without a web server and without a node, it removes the
 * remembered entities from the store the node would use (here the embedded H2 file database) and stops; while a
 * node of its cluster is alive it fails to start, explains why, and changes nothing.
 */
@ExtendWith(OutputCaptureExtension.class)
class ShardingDataRemovalApplicationTests {

    private final String clusterName = "removal-" + UUID.randomUUID();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        this.contexts.forEach(ConfigurableApplicationContext::close);
    }

    private Path database() {
        return this.dir.resolve("data").resolve("sharding");
    }

    private StoreProperties storeProperties() {
        StoreProperties properties = new StoreProperties();
        properties.setEmbeddedPath(database());
        return properties;
    }

    /** The embedded database's pool as the application opens it. */
    private EmbeddedH2Pool openPool() {
        return JdbcStores.embeddedPool(storeProperties(), null);
    }

    /** The store as the application opens it, on the embedded database. */
    private ShardingStore openStore(EmbeddedH2Pool pool) {
        return JdbcStores.overEmbeddedDatabase(storeProperties(), pool);
    }

    private ConfigurableApplicationContext run(String... moreArgs) {
        List<String> args = new ArrayList<>(List.of(
                "--sharding.cluster-name=" + this.clusterName,
                "--sharding.jgroups.config=shared-loopback.xml",
                "--sharding.retry-interval=300ms",
                "--sharding.store.embedded-path=" + database()));
        args.addAll(List.of(moreArgs));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(BankApplication.class)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(args.toArray(String[]::new));
        this.contexts.add(context);
        return context;
    }

    @Test
    void removesTheRememberedEntitiesKeepsTheStateAndStopsWhenNoNodeIsAlive(CapturedOutput output) throws Exception {
        long epoch;
        try (EmbeddedH2Pool pool = openPool();
                ShardingStore store = openStore(pool)) {
            epoch = store.nextEpoch("account", 3).get(10, TimeUnit.SECONDS);
            store.write("account", "a-1", 3, epoch, new byte[] {42}).get(10, TimeUnit.SECONDS);
            store.updateRemembered("account", 3, List.of("a-1", "a-2"), List.of())
                    .get(10, TimeUnit.SECONDS);
        }

        ConfigurableApplicationContext context = run("--sharding.store.remove-sharding-data=true");

        assertThat(context.isActive()).as("the application stopped itself").isFalse();
        assertThat(context.getEnvironment().getProperty("spring.main.web-application-type"))
                .isEqualTo("none");
        assertThat(output)
                .contains("Removed the stored sharding data of cluster " + this.clusterName
                        + ": 2 remembered entity ids");
        try (EmbeddedH2Pool pool = openPool();
                ShardingStore store = openStore(pool)) {
            assertThat(store.remembered("account", 3).get(10, TimeUnit.SECONDS)).isEmpty();
            assertThat(store.read("account", "a-1").get(10, TimeUnit.SECONDS))
                    .hasValueSatisfying(state -> assertThat(state.state()).containsExactly(42));
            long next = store.nextEpoch("account", 3).get(10, TimeUnit.SECONDS);
            assertThat(next).isGreaterThan(epoch);
            assertThat(store.write("account", "a-1", 3, next, new byte[] {43})
                            .get(10, TimeUnit.SECONDS)
                            .version())
                    .isEqualTo(2);
        }
    }

    @Test
    void failsToStartNamingTheLiveNodeAndChangesNothingWhileANodeRuns(CapturedOutput output) throws Exception {
        try (EmbeddedH2Pool pool = openPool();
                ShardingStore store = openStore(pool)) {
            store.updateRemembered("account", 3, List.of("a-1"), List.of()).get(10, TimeUnit.SECONDS);
        }
        ConfigurableApplicationContext node = new SpringApplicationBuilder(BankApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(
                        "--sharding.cluster-name=" + this.clusterName,
                        "--sharding.node-name=live-1",
                        "--sharding.jgroups.config=shared-loopback.xml",
                        "--sharding.store.type=memory");
        this.contexts.add(node);
        assertThat(node.getBean(ShardingNode.class).isRunning()).isTrue();

        assertThatThrownBy(() -> run("--sharding.store.remove-sharding-data=true"))
                .isInstanceOf(ClusterNotStoppedException.class)
                .satisfies(failure -> {
                    FailureAnalysis analysis = new ShardingDataRemovalFailureAnalyzer().analyze(failure);
                    assertThat(analysis.getDescription())
                            .contains("'" + this.clusterName + "'", "member live-1 is alive", "Nothing was changed");
                    assertThat(analysis.getAction())
                            .contains(
                                    "Stop every node",
                                    "live-1",
                                    "sharding.store.remove-sharding-data=true",
                                    "sharding.cluster-name");
                });

        assertThat(output).contains("APPLICATION FAILED TO START", "member live-1 is alive");
        try (EmbeddedH2Pool pool = openPool();
                ShardingStore store = openStore(pool)) {
            assertThat(store.remembered("account", 3).get(10, TimeUnit.SECONDS)).containsExactly("a-1");
        }
        assertThat(node.getBean(ShardingNode.class).members()).hasSize(1);
    }

    @Test
    void onlyTheRemovalModeStartsWithoutAWebServer() {
        assertThat(postProcessed(Map.of("sharding.store.remove-sharding-data", "true"))
                        .getProperty("spring.main.web-application-type"))
                .isEqualTo("none");
        assertThat(postProcessed(Map.of()).getProperty("spring.main.web-application-type"))
                .isNull();
        assertThat(postProcessed(Map.of("sharding.store.remove-sharding-data", "false"))
                        .getProperty("spring.main.web-application-type"))
                .isNull();
        assertThat(postProcessed(Map.of("sharding.store.remove-sharding-data", "true", "sharding.enabled", "false"))
                        .getProperty("spring.main.web-application-type"))
                .isNull();
    }

    private static StandardEnvironment postProcessed(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        new ShardingDataRemovalEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }
}
