package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.internal.store.InMemoryShardingStore;
import dev.sharding.internal.store.JdbcShardingStore;
import dev.sharding.spi.ShardingStore;
import dev.sharding.autoconfigure.greeting.GreeterConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Which store the auto-configuration makes: JDBC over the application's DataSource, or over an embedded H2 file
 * database when it has none; in memory when asked; the application's own when it defines one.
 */
class ShardingStoreAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingAutoConfiguration.class))
            .withUserConfiguration(GreeterConfiguration.class)
            .withPropertyValues("sharding.jgroups.config=shared-loopback.xml", "sharding.retry-interval=300ms",
                    "sharding.cluster-name=store-" + UUID.randomUUID());

    @TempDir
    Path dir;

    private static boolean tableExists(DataSource dataSource, String table) throws Exception {
        try (Connection c = dataSource.getConnection();
                ResultSet rs = c.getMetaData().getTables(null, null, table.toUpperCase(), null)) {
            return rs.next();
        }
    }

    @Test
    void usesAnEmbeddedH2FileDatabaseWhenTheApplicationHasNoDataSource() {
        Path db = dir.resolve("shared").resolve("sharding");
        this.runner.withPropertyValues("sharding.store.embedded-path=" + db).run(context -> {
            ShardingStore store = context.getBean(ShardingStore.class);
            assertThat(store).isInstanceOf(OwningStore.class);
            assertThat(((OwningStore) store).store()).isInstanceOf(JdbcShardingStore.class);
            assertThat(db.resolveSibling("sharding.mv.db")).exists();
            store.write("greeter", "g", 0, 0, new byte[] {1}).join();
            assertThat(store.read("greeter", "g").join()).isPresent();
        });
        assertThat(Files.exists(db.resolveSibling("sharding.mv.db"))).as("the database outlives the context").isTrue();
    }

    @Test
    void usesTheApplicationsDataSourceWithTheTablePrefix() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        this.runner.withBean(DataSource.class, () -> dataSource).withPropertyValues("sharding.store.table-prefix=bank_")
                .run(context -> {
                    assertThat(context.getBean(ShardingStore.class)).isInstanceOf(JdbcShardingStore.class);
                    assertThat(tableExists(dataSource, "bank_entity_state")).isTrue();
                    assertThat(tableExists(dataSource, "sharding_entity_state")).isFalse();
                });
    }

    @Test
    void keepsEverythingInMemoryWhenAsked() {
        this.runner.withPropertyValues("sharding.store.type=memory").run(context -> assertThat(
                context.getBean(ShardingStore.class)).isInstanceOf(InMemoryShardingStore.class));
    }

    @Test
    void backsOffWhenUserDefinesShardingStore() {
        InMemoryShardingStore own = new InMemoryShardingStore();
        this.runner.withBean(ShardingStore.class, () -> own)
                .run(context -> assertThat(context.getBean(ShardingStore.class)).isSameAs(own));
    }
}
