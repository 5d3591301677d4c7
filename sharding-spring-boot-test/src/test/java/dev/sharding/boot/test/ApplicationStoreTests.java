package dev.sharding.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.ShardRegion;
import dev.sharding.boot.test.AutoConfigureShardingTest.Store;
import dev.sharding.boot.test.counter.Counter;
import dev.sharding.boot.test.counter.CounterApplication;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code @AutoConfigureShardingTest(store = APPLICATION)}: the test node keeps its state in the store the application
 * configures (here the application's {@code sharding.store.type=jdbc}, the embedded H2 file, moved to a temporary
 * folder), while the rest of the test settings (in-JVM stack, a cluster name of its own) still apply.
 *
 * <p>The context is closed after the class: its database is open in the temporary folder, and a cached context would
 * keep writing there while JUnit deletes the folder.
 */
@SpringBootTest(classes = CounterApplication.class)
@AutoConfigureShardingTest(store = Store.APPLICATION)
@DirtiesContext
class ApplicationStoreTests {

    @TempDir
    static Path folder;

    @DynamicPropertySource
    static void embeddedDatabaseInTheTemporaryFolder(DynamicPropertyRegistry registry) {
        registry.add(
                "sharding.store.embedded-path", () -> folder.resolve("sharding").toString());
    }

    @Autowired
    private ShardingStore store;

    @Autowired
    private ShardRegion<Counter> counters;

    @Autowired
    private Environment environment;

    @Test
    void theNodeUsesTheApplicationsStoreAndStaysOnItsOwnTestCluster() throws Exception {
        assertThat(store).isNotInstanceOf(InMemoryShardingStore.class);
        assertThat(store.storeId().get(30, TimeUnit.SECONDS))
                .as("a JDBC store keeps an id; the in-memory one has none")
                .isPresent();
        try (var files = Files.list(folder)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("the embedded database file, in the test's folder")
                    .anyMatch(name -> name.startsWith("sharding"));
        }
        assertThat(environment.getProperty("sharding.jgroups.config")).isEqualTo(ShardingTestProperties.IN_JVM_STACK);
        assertThat(environment.getProperty("sharding.cluster-name")).startsWith("test-");
        assertThat(counters.ask("a-1", new Counter.Add(2), Counter.Total.class)
                        .get(30, TimeUnit.SECONDS)
                        .total())
                .isEqualTo(2);
    }
}
