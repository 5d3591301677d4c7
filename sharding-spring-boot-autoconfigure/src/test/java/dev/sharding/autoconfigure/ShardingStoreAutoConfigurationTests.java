package dev.sharding.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sharding.autoconfigure.greeting.GreeterConfiguration;
import dev.sharding.spi.ShardingStore;
import dev.sharding.store.InMemoryShardingStore;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.store.JdbcStoreSettings;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;

/**
 * Which store the auto-configuration makes: JDBC over the application's DataSource, or over an embedded H2 file
 * database when it has none; in memory when asked; the application's own when it defines one.
 */
class ShardingStoreAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingAutoConfiguration.class))
            .withUserConfiguration(GreeterConfiguration.class)
            .withPropertyValues(
                    "sharding.jgroups.config=shared-loopback.xml",
                    "sharding.retry-interval=300ms",
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
            assertThat(store).isInstanceOf(JdbcShardingStore.class);
            assertThat(((JdbcShardingStore) store).dataSource())
                    .as("the pool of the embedded database, a bean of its own")
                    .isSameAs(context.getBean(EmbeddedH2Database.class).pool());
            assertThat(context)
                    .as("the embedded database is no DataSource of the application")
                    .doesNotHaveBean(DataSource.class);
            assertThat(context.getBean(ShardingDiscoveryDatabase.class).dataSource())
                    .as("JDBC discovery uses the store's database")
                    .isSameAs(context.getBean(EmbeddedH2Database.class).pool());
            assertThat(db.resolveSibling("sharding.mv.db")).exists();
            store.write("greeter", "g", 0, 0, new byte[] {1}).join();
            assertThat(store.read("greeter", "g").join()).isPresent();
        });
        assertThat(Files.exists(db.resolveSibling("sharding.mv.db")))
                .as("the database outlives the context")
                .isTrue();
    }

    @Test
    void refusesToFallBackToTheEmbeddedDatabaseWhenADatabaseUrlIsSetButJdbcSupportIsMissing() {
        // no DataSourceAutoConfiguration here: as without spring-boot-starter-jdbc on the class path
        Path db = dir.resolve("fallback").resolve("sharding");
        this.runner
                .withPropertyValues(
                        "spring.datasource.url=jdbc:postgresql://db-host/bank", "sharding.store.embedded-path=" + db)
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription())
                            .contains("spring.datasource.url is set (jdbc:postgresql://db-host/bank)")
                            .contains("no DataSource")
                            .contains("embedded H2 file database instead");
                    assertThat(analysis.getAction())
                            .contains("org.springframework.boot:spring-boot-starter-jdbc")
                            .contains("org.postgresql:postgresql");
                }));
        assertThat(db.resolveSibling("sharding.mv.db"))
                .as("no embedded database made")
                .doesNotExist();
    }

    private JdbcDataSource fileDatabase(String name) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:file:" + this.dir.resolve(name).toAbsolutePath());
        return dataSource;
    }

    private static ContextConsumer<AssertableApplicationContext> reports(Consumer<FailureAnalysis> expectations) {
        return context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = FailureAnalyses.analyze(context.getStartupFailure(), new StandardEnvironment());
            assertThat(analysis)
                    .as("a failure analysis of %s", context.getStartupFailure())
                    .isNotNull();
            expectations.accept(analysis);
        };
    }

    @Test
    void usesTheApplicationsDataSourceWithTheTablePrefix() {
        JdbcDataSource dataSource = fileDatabase("app");
        this.runner
                .withBean(DataSource.class, () -> dataSource)
                .withPropertyValues("sharding.store.table-prefix=bank_", "sharding.store.initialize-schema=always")
                .run(context -> {
                    assertThat(context.getBean(ShardingStore.class)).isInstanceOf(JdbcShardingStore.class);
                    assertThat(context).doesNotHaveBean(EmbeddedH2Database.class);
                    assertThat(context.getBean(ShardingDiscoveryDatabase.class))
                            .isEqualTo(new ShardingDiscoveryDatabase(dataSource, "bank_"));
                    assertThat(tableExists(dataSource, "bank_entity_state")).isTrue();
                    assertThat(tableExists(dataSource, "sharding_entity_state")).isFalse();
                });
    }

    @Test
    void leavesTheApplicationsDatabaseAloneByDefaultAndReportsMissingTables() {
        JdbcDataSource dataSource = fileDatabase("app");
        this.runner.withBean(DataSource.class, () -> dataSource).run(reports(analysis -> {
            assertThat(analysis.getDescription())
                    .contains("sharding_entity_state", "are missing", "initialize-schema=embedded");
            assertThat(analysis.getAction())
                    .contains("dev/sharding/store/schema-h2.sql", "Flyway", "sharding.store.initialize-schema=always");
        }));
    }

    @Test
    void createsItsTablesAfterTheApplicationsDatabaseInitializers() {
        JdbcDataSource dataSource = fileDatabase("migrated");
        this.runner
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withBean(DataSource.class, () -> dataSource)
                .withPropertyValues(
                        "spring.sql.init.mode=always",
                        "spring.sql.init.schema-locations=classpath:dev/sharding/store/schema-h2.sql",
                        "sharding.store.initialize-schema=never")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tableExists(dataSource, "sharding_shard_epoch")).isTrue();
                    assertThat(context.getBean(ShardingStore.class)
                                    .nextEpoch("greeter", 1)
                                    .join())
                            .isPositive();
                });
    }

    @Test
    void aMissingJdbcDriverIsReportedWithTheDependencyToAdd() {
        // spring-boot-starter-jdbc present, the PostgreSQL driver not: the pool cannot load the driver the URL needs
        this.runner
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:postgresql://db-host/bank")
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription()).contains("org.postgresql.Driver", "is not on the class path");
                    assertThat(analysis.getAction()).contains("org.postgresql:postgresql");
                }));
    }

    @Test
    void refusesAnInMemoryDatabase() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        this.runner.withBean(DataSource.class, () -> dataSource).run(reports(analysis -> {
            assertThat(analysis.getDescription()).contains("jdbc:h2:mem:", "in-memory database", "fence");
            assertThat(analysis.getAction()).contains("spring.datasource.url", "sharding.store.type=memory");
        }));
    }

    @Test
    void reportsAnUnreachableDatabase() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:tcp://127.0.0.1:" + closedPort + "/nowhere");
        this.runner.withBean(DataSource.class, () -> dataSource).run(reports(analysis -> {
            assertThat(analysis.getDescription())
                    .contains("could not connect", "jdbc:h2:tcp://127.0.0.1:" + closedPort);
            assertThat(analysis.getAction()).contains("spring.datasource.url");
        }));
    }

    @Test
    void refusesToChooseAmongTwoDataSourcesNeitherMarkedNorPrimary() {
        this.runner
                .withBean("first", DataSource.class, () -> fileDatabase("first"))
                .withBean("second", DataSource.class, () -> fileDatabase("second"))
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription())
                            .contains("[first, second]", "@ShardingDataSource", "@Primary");
                    assertThat(analysis.getAction()).contains("@ShardingDataSource");
                }));
    }

    @Test
    void usesTheDataSourceMarkedShardingDataSource() {
        JdbcDataSource app = fileDatabase("app");
        JdbcDataSource sharding = fileDatabase("sharding");
        this.runner
                .withUserConfiguration(TwoDataSources.class)
                .withBean("appDataSource", DataSource.class, () -> app, d -> d.setPrimary(true))
                .withBean(StoreDatabase.class, () -> new StoreDatabase(sharding))
                .withPropertyValues("sharding.store.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tableExists(sharding, "sharding_entity_state")).isTrue();
                    assertThat(tableExists(app, "sharding_entity_state")).isFalse();
                });
    }

    @Test
    void usesThePrimaryDataSourceOfSeveral() {
        JdbcDataSource primary = fileDatabase("primary");
        JdbcDataSource other = fileDatabase("other");
        this.runner
                .withBean("primary", DataSource.class, () -> primary, d -> d.setPrimary(true))
                .withBean("other", DataSource.class, () -> other)
                .withPropertyValues("sharding.store.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tableExists(primary, "sharding_entity_state")).isTrue();
                    assertThat(tableExists(other, "sharding_entity_state")).isFalse();
                });
    }

    @Test
    void embeddedDatabaseIsClosedByTheStoreNotByH2sShutdownHook() {
        Path db = dir.resolve("hook").resolve("sharding");
        this.runner.withPropertyValues("sharding.store.embedded-path=" + db).run(context -> {
            ShardingStore store = context.getBean(ShardingStore.class);
            assertThat(H2ShutdownHook.detach())
                    .as("H2's hook is no longer registered")
                    .isFalse();
            store.write("greeter", "g", 0, 0, new byte[] {1}).join();
        });
    }

    /** A DataSource of the store's own, beside the application's primary one. */
    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {

        @Bean
        @ShardingDataSource
        DataSource shardingDataSource(StoreDatabase database) {
            return database.dataSource();
        }
    }

    /** Hands the test's DataSource to the configuration without being a DataSource bean itself. */
    record StoreDatabase(DataSource dataSource) {}

    @Test
    void keepsEverythingInMemoryWhenAsked() {
        this.runner.withPropertyValues("sharding.store.type=memory").run(context -> {
            assertThat(context.getBean(ShardingStore.class)).isInstanceOf(InMemoryShardingStore.class);
            assertThat(context).doesNotHaveBean(EmbeddedH2Database.class);
            assertThat(context).doesNotHaveBean(ShardingDiscoveryDatabase.class);
        });
    }

    @Test
    void backsOffWhenUserDefinesShardingStore() {
        InMemoryShardingStore own = new InMemoryShardingStore();
        this.runner.withBean(ShardingStore.class, () -> own).run(context -> {
            assertThat(context.getBean(ShardingStore.class)).isSameAs(own);
            assertThat(context).doesNotHaveBean(EmbeddedH2Database.class);
        });
    }

    private static int writeDelay(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection();
                ResultSet rs = c.createStatement()
                        .executeQuery("SELECT MAX(CAST(SETTING_VALUE AS INT)) FROM INFORMATION_SCHEMA.SETTINGS"
                                + " WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void storePropertiesDefaultToTheCoreDefaults() {
        StoreProperties properties = new StoreProperties();
        JdbcStoreSettings defaults = JdbcStoreSettings.defaults();
        assertThat(properties.getTablePrefix()).isEqualTo(defaults.tablePrefix());
        assertThat(properties.getQueryTimeout()).isEqualTo(defaults.queryTimeout());
        assertThat(properties.getBatchLinger()).isEqualTo(defaults.batchLinger());
        assertThat(properties.isAllowNonDurableCommits()).isEqualTo(defaults.allowNonDurableCommits());
    }

    @Test
    void setsTheWriteDelayOfAnH2UrlWithoutOneToZero() throws Exception {
        JdbcDataSource dataSource = fileDatabase("plain");
        // kept open, so that H2 keeps the database open between the store's connections (it would open it again
        // with its default write delay, which the store would set again before its next write)
        try (Connection open = dataSource.getConnection()) {
            assertThat(writeDelay(dataSource)).as("H2's default").isEqualTo(500);
            this.runner
                    .withBean(DataSource.class, () -> dataSource)
                    .withPropertyValues("sharding.store.initialize-schema=always")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(writeDelay(dataSource)).isZero();
                    });
        }
    }

    @Test
    void refusesAnH2UrlThatSetsAWriteDelay() {
        JdbcDataSource dataSource = fileDatabase("delayed");
        dataSource.setURL(dataSource.getURL() + ";WRITE_DELAY=500");
        this.runner.withBean(DataSource.class, () -> dataSource).run(reports(analysis -> {
            assertThat(analysis.getDescription()).contains("WRITE_DELAY=500", "write delay", "acknowledged");
            assertThat(analysis.getAction())
                    .contains("Remove WRITE_DELAY", "sharding.store.allow-non-durable-commits=true");
        }));
    }

    @Test
    void refusesAnH2UserWhoCannotSetTheWriteDelayUnlessNonDurableCommitsAreAllowed() throws Exception {
        JdbcDataSource admin = fileDatabase("restricted");
        try (Connection c = admin.getConnection()) {
            c.createStatement().execute("CREATE USER teller PASSWORD 'teller'");
            c.createStatement().execute("GRANT ALTER ANY SCHEMA TO teller");
        }
        JdbcDataSource teller = fileDatabase("restricted");
        teller.setUser("teller");
        teller.setPassword("teller");
        this.runner
                .withBean(DataSource.class, () -> teller)
                .withPropertyValues("sharding.store.initialize-schema=always")
                .run(reports(analysis -> {
                    assertThat(analysis.getDescription())
                            .contains("write delay is 500 ms (WRITE_DELAY=500)", "TELLER", "no admin rights");
                    assertThat(analysis.getAction())
                            .contains("WRITE_DELAY=0", "sharding.store.allow-non-durable-commits=true");
                }));
        this.runner
                .withBean(DataSource.class, () -> teller)
                .withPropertyValues(
                        "sharding.store.initialize-schema=always", "sharding.store.allow-non-durable-commits=true")
                .run(context -> assertThat(context).hasNotFailed());
    }
}
