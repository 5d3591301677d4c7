package dev.sharding.autoconfigure;

import dev.sharding.ShardingException;
import dev.sharding.store.JdbcShardingStore;
import dev.sharding.store.NonDurableCommitsException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.ClassUtils;

/**
 * Makes the JDBC stores of {@link ShardingStoreConfigurations}: over the application's {@link DataSource}, or over the
 * embedded H2 file database when the application has none. Checks the database before the node uses it: reachable,
 * H2 or PostgreSQL, not in memory, and with the store's tables (created here when
 * {@code sharding.store.initialize-schema} says so).
 */
final class JdbcStores {

    /**
     * Settings of the embedded H2 database. AUTO_SERVER lets several nodes started from one folder share the file
     * (the first serves it to the others; when it stops, the store's next connection finds whoever serves it next,
     * in turn with the other nodes: {@link EmbeddedH2Pool}, {@link H2FileTakeover}); WRITE_DELAY=0 makes a commit
     * reach the file before it returns, so a kill -9 of the serving process loses no acknowledged write. (H2 refuses
     * DB_CLOSE_ON_EXIT=FALSE beside AUTO_SERVER, hence {@link H2ShutdownHook}.)
     */
    static final String EMBEDDED_H2_OPTIONS = ";AUTO_SERVER=TRUE;WRITE_DELAY=0";

    /** Settings of a connection to another node's server of the embedded file: its commits reach the file too. */
    static final String EMBEDDED_H2_CLIENT_OPTIONS = ";WRITE_DELAY=0";

    /**
     * How long a node waits for another to take the embedded file over before it tries H2's own way: longer than H2
     * takes to open a file a killed process left locked (about two seconds).
     */
    private static final long TAKEOVER_PATIENCE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(15);

    /** The store's tables, without their prefix. */
    private static final List<String> TABLES =
            List.of("entity_state", "shard_epoch", "remembered_entity", "coordinator_lease", "store");

    /** The tables of the event journal and projections, which only event-sourced entity types need. */
    private static final List<String> JOURNAL_TABLES =
            List.of("event_journal", "event_tag", "event_snapshot", "event_offset", "projection_offset");

    /**
     * The system property H2 binds its server sockets to, read once when H2 loads. AUTO_SERVER's server allows
     * other hosts, so without it the port would listen on every interface.
     */
    static final String H2_BIND_ADDRESS = "h2.bindAddress";

    private static final Logger log = LoggerFactory.getLogger(JdbcStores.class);

    private JdbcStores() {}

    /**
     * The store over the application's DataSource, checked.
     *
     * @param properties the store's properties
     * @param dataSource the application's DataSource
     * @return the store
     * @throws ShardingConfigurationException when the database does not suit the store
     */
    static JdbcShardingStore overApplicationDataSource(StoreProperties properties, DataSource dataSource) {
        String url = checkDatabase(dataSource);
        if (!properties.isAllowNonDurableCommits()) {
            checkWriteDelayOfTheUrl(dataSource);
        }
        JdbcShardingStore store = build(properties, dataSource);
        try {
            checkDurability(store, url);
            if (properties.getInitializeSchema() == DatabaseInitializationMode.ALWAYS) {
                createSchema(store, url, properties);
            } else {
                checkTables(dataSource, url, properties);
            }
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        log.info("Sharding store: the application's DataSource, {}", url);
        return store;
    }

    /**
     * The connection pool of the embedded H2 file database, for an application with no DataSource.
     *
     * @param properties the store's properties
     * @param configuredUrl {@code spring.datasource.url}, or null when it is not set: with no DataSource, a URL set
     *     means the application meant a database the store would not use (Spring Boot's JDBC support is missing)
     * @return the pool, which the caller closes after the store
     * @throws ShardingConfigurationException when the application meant another database, or H2 is missing
     */
    static EmbeddedH2Pool embeddedPool(StoreProperties properties, @Nullable String configuredUrl) {
        if (configuredUrl != null && !configuredUrl.isBlank()) {
            throw new ShardingConfigurationException(
                    "spring.datasource.url is set (" + configuredUrl + "), but the application has no DataSource:"
                            + " Spring Boot makes one only with spring-boot-starter-jdbc (or another starter that"
                            + " brings JDBC) on the class path. The sharding store would keep its state in the"
                            + " embedded H2 file database instead, which no other machine shares.",
                    "Add org.springframework.boot:spring-boot-starter-jdbc and the database's JDBC driver (for"
                            + " PostgreSQL, org.postgresql:postgresql). To use the embedded H2 file database on"
                            + " purpose, remove spring.datasource.url.",
                    null);
        }
        if (!ClassUtils.isPresent("org.h2.Driver", JdbcStores.class.getClassLoader())) {
            throw new ShardingConfigurationException(
                    "The sharding store has no database: the application has no "
                            + "DataSource, and the H2 driver for the embedded database is not on the class path.",
                    "Give the application a DataSource (spring.datasource.url), add com.h2database:h2 for the "
                            + "embedded database, or set sharding.store.type=memory to keep state in memory only.",
                    null);
        }
        bindEmbeddedServerToLoopback();
        // wait for a free connection no longer than a statement may run
        return new EmbeddedH2Pool(
                embeddedUrl(properties),
                EMBEDDED_H2_CLIENT_OPTIONS,
                new H2FileTakeover(properties.getEmbeddedPath(), TAKEOVER_PATIENCE_NANOS),
                16,
                (int) Math.max(1, (properties.getQueryTimeout().toMillis() + 999) / 1000));
    }

    /**
     * The store over the embedded H2 file database, checked; its tables are created unless
     * {@code sharding.store.initialize-schema=never}.
     *
     * @param properties the store's properties
     * @param pool the embedded database's pool, which outlives the store
     * @return the store
     * @throws ShardingConfigurationException when the database does not suit the store
     */
    static JdbcShardingStore overEmbeddedDatabase(StoreProperties properties, EmbeddedH2Pool pool) {
        String url = embeddedUrl(properties);
        JdbcShardingStore store = build(properties, pool);
        try {
            checkDurability(store, url);
            if (properties.getInitializeSchema() == DatabaseInitializationMode.NEVER) {
                checkTables(pool, url, properties);
            } else {
                createSchema(store, url, properties);
            }
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        log.info(
                "Sharding store: embedded H2 database {}",
                properties.getEmbeddedPath().toAbsolutePath());
        return store;
    }

    private static String embeddedUrl(StoreProperties properties) {
        return "jdbc:h2:file:" + properties.getEmbeddedPath().toAbsolutePath() + EMBEDDED_H2_OPTIONS;
    }

    private static JdbcShardingStore build(StoreProperties properties, DataSource dataSource) {
        return JdbcShardingStore.builder(dataSource)
                .tablePrefix(properties.getTablePrefix())
                .queryTimeout(properties.getQueryTimeout())
                .batchLinger(properties.getBatchLinger())
                .allowNonDurableCommits(properties.isAllowNonDurableCommits())
                .build();
    }

    /** Checks that the database is reachable, supported and not in memory; returns its URL. */
    private static String checkDatabase(DataSource dataSource) {
        String url;
        String product;
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            url = String.valueOf(metaData.getURL());
            product = String.valueOf(metaData.getDatabaseProductName());
        } catch (SQLException | RuntimeException e) {
            throw new ShardingConfigurationException(
                    "The sharding store could not connect to the application's " + "DataSource"
                            + DataSourceUrls.describe(dataSource) + ": " + e.getMessage(),
                    "Check spring.datasource.url, its user name and password, and that the database is running. "
                            + "To give the store a database of its own, mark its DataSource bean @ShardingDataSource.",
                    e);
        }
        if (isInMemory(url)) {
            throw new ShardingConfigurationException(
                    "The sharding store refuses the application's DataSource "
                            + url
                            + ": it is an in-memory database, private to this process. The nodes of a cluster would "
                            + "each have their own, so shard epochs could not fence a node that lost its shards, and entity "
                            + "state would not survive a restart. (Spring Boot makes such a DataSource when "
                            + "spring-boot-starter-jdbc is present and spring.datasource.url is not set.)",
                    "Set spring.datasource.url to a database that all nodes share (PostgreSQL, or an H2 server "
                            + "URL jdbc:h2:tcp://...); or remove the DataSource (and spring-boot-starter-jdbc) to use "
                            + "the embedded H2 file database; or, in tests, annotate the test class with "
                            + "@AutoConfigureShardingTest (module sharding-spring-boot-test), which keeps the state in "
                            + "memory (or set sharding.store.type=memory).",
                    null);
        }
        String lower = product.toLowerCase(Locale.ROOT);
        if (!lower.equals("h2") && !lower.equals("postgresql")) {
            throw new ShardingConfigurationException(
                    "The sharding store supports H2 and PostgreSQL, and the " + "application's DataSource " + url
                            + " is " + product + ".",
                    "Give the store a PostgreSQL database: a DataSource bean of its own marked @ShardingDataSource, "
                            + "or the application's own; or set sharding.store.type=memory.",
                    null);
        }
        return url;
    }

    /**
     * Refuses an H2 URL that sets a write delay above 0: H2 applies it to the whole database at every connection
     * opened with it, so the pool would undo the store's setting each time it opens one.
     */
    private static void checkWriteDelayOfTheUrl(DataSource dataSource) {
        String configured = DataSourceUrls.describe(dataSource);
        Matcher m = WRITE_DELAY_IN_URL.matcher(configured);
        if (configured.toLowerCase(Locale.ROOT).contains("jdbc:h2:") && m.find() && Long.parseLong(m.group(1)) > 0) {
            throw new ShardingConfigurationException(
                    "The sharding store refuses the application's DataSource" + configured + ": its URL sets H2's"
                            + " write delay to " + m.group(1) + " ms (WRITE_DELAY=" + m.group(1) + "), so that a"
                            + " commit returns before it is written to the file, and a kill of the process that holds"
                            + " the file loses the writes acknowledged meanwhile. H2 applies it to the whole database"
                            + " at every connection opened with this URL, undoing what the store sets.",
                    "Remove WRITE_DELAY from the URL, or set WRITE_DELAY=0 (the store sets 0 itself when the URL has"
                            + " none); or set sharding.store.allow-non-durable-commits=true to accept losing"
                            + " acknowledged writes.",
                    null);
        }
    }

    private static final Pattern WRITE_DELAY_IN_URL = Pattern.compile("(?i);\\s*WRITE_DELAY\\s*=\\s*(\\d+)");

    /** Lets the store check, and fix where it can, that its commits are durable; reports what it cannot fix. */
    private static void checkDurability(JdbcShardingStore store, String url) {
        try {
            store.checkDurability();
        } catch (NonDurableCommitsException e) {
            throw new ShardingConfigurationException(
                    "The sharding store refuses its database " + url + ": " + e.problem(), e.fix(), e);
        }
    }

    /** The schema script of the database the URL names, or the pattern of both when it names neither. */
    private static String schemaScript(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        String kind = lower.startsWith("jdbc:postgresql:") ? "postgresql" : lower.startsWith("jdbc:h2:") ? "h2" : null;
        return "dev/sharding/store/schema-" + (kind == null ? "<h2|postgresql>" : kind) + ".sql";
    }

    private static boolean isInMemory(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        return lower.startsWith("jdbc:h2:mem:")
                || lower.startsWith("jdbc:hsqldb:mem:")
                || lower.startsWith("jdbc:derby:memory:");
    }

    private static void createSchema(JdbcShardingStore store, String url, StoreProperties properties) {
        try {
            store.createSchema();
        } catch (ShardingException e) {
            throw new ShardingConfigurationException(
                    "The sharding store could not create its tables (prefix " + properties.getTablePrefix() + ") in "
                            + url + ": " + e.getMessage(),
                    "Check that the database user may create tables, or create them beforehand with the script "
                            + schemaScript(url) + " of sharding-core and set "
                            + "sharding.store.initialize-schema=never.",
                    e);
        }
    }

    private static void checkTables(DataSource dataSource, String url, StoreProperties properties) {
        String prefix = properties.getTablePrefix();
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            for (String table : TABLES) {
                statement
                        .executeQuery("SELECT 1 FROM " + prefix + table + " WHERE 1 = 0")
                        .close();
            }
        } catch (SQLException e) {
            throw new ShardingConfigurationException(
                    "The sharding store's tables (" + prefix + "entity_state, "
                            + prefix + "shard_epoch, " + prefix + "remembered_entity, " + prefix + "coordinator_lease, "
                            + prefix
                            + "store) are missing in " + url
                            + ", and sharding.store.initialize-schema="
                            + properties.getInitializeSchema().name().toLowerCase(Locale.ROOT)
                            + " does not create them there: " + e.getMessage(),
                    "Create them with a migration (Flyway or Liquibase; they run before the store starts) from the "
                            + "script " + schemaScript(url) + " of sharding-core, or set "
                            + "sharding.store.initialize-schema=always to let the store create them.",
                    e);
        }
        List<String> missing = new java.util.ArrayList<>();
        for (String table : JOURNAL_TABLES) {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement
                        .executeQuery("SELECT 1 FROM " + prefix + table + " WHERE 1 = 0")
                        .close();
            } catch (SQLException e) {
                missing.add(prefix + table);
            }
        }
        if (!missing.isEmpty()) {
            log.warn(
                    "The sharding store's event journal tables {} are missing in {}: event-sourced entity types and "
                            + "projections cannot run until they are created (script {} of sharding-core, or "
                            + "sharding.store.initialize-schema=always)",
                    missing,
                    url,
                    schemaScript(url));
        }
    }

    /**
     * Makes the embedded database's AUTO_SERVER port listen on the loopback address only, unless the application set
     * {@value #H2_BIND_ADDRESS} itself; warns when H2 was loaded before with no such setting, too late to change.
     */
    static void bindEmbeddedServerToLoopback() {
        if (System.getProperty(H2_BIND_ADDRESS) == null) {
            System.setProperty(H2_BIND_ADDRESS, "127.0.0.1");
        }
        String bound = org.h2.engine.SysProperties.BIND_ADDRESS;
        if (bound == null || bound.isEmpty()) {
            log.warn(
                    "The embedded H2 database's server port (AUTO_SERVER) listens on every interface: H2 was loaded"
                            + " before the sharding store set -D{}=127.0.0.1; set it on the command line",
                    H2_BIND_ADDRESS);
        } else {
            log.debug("The embedded H2 database's server port listens on {}", bound);
        }
    }
}
