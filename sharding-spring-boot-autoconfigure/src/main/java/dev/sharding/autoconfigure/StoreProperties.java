package dev.sharding.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Where entity state, shard epochs and remembered entities are kept, bound from {@code sharding.store.*}.
 */
public class StoreProperties {

    /**
     * Kind of store: "jdbc" keeps everything in a database (the application's DataSource, or else an embedded H2
     * file database shared by the nodes started from the same folder), "memory" keeps it in each node's memory only,
     * without durability.
     */
    private StoreType type = StoreType.JDBC;

    /**
     * Prefix of the store's table names.
     */
    private String tablePrefix = "sharding_";

    /**
     * Path of the embedded H2 database file (without its extension), used when the application has no DataSource.
     * Nodes started with the same path share the database: the first opens it and serves it to the others.
     */
    private Path embeddedPath = Path.of("data", "sharding");

    /**
     * When to create the store's tables at startup where they do not exist: "embedded" only in the embedded H2 file
     * database, "always" also in the application's DataSource, "never" to leave them to migrations (Flyway or
     * Liquibase run first). When they are not created, the store checks at startup that they exist.
     */
    private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

    /**
     * Whether to start no sharding node but remove the stored sharding data of the cluster instead (the ids of its
     * remembered entities; entity state is kept), then stop the application. Refused while any member of the
     * cluster is alive. The application starts without a web server in this mode.
     */
    private boolean removeShardingData;

    /**
     * Longest time one statement of the JDBC store may run, waiting for row locks included, before it fails with
     * an error naming this property: a hung database, or a frozen node holding row locks, then fails the operations
     * that need it instead of stalling them. Reads, new epochs and coordinator lease requests also fail once they
     * have waited twice as long in all, and writes once the writer has waited that long for a connection, even when
     * the database does not answer at all; a connection whose driver has no network timeout (H2's client of another
     * node's server) is aborted after twice this, as is a wait for a connection from the pool. Also bounds the wait
     * for a connection of the embedded H2 database. The default fails calls on a database that does not answer (after
     * 4 s) within the default ask timeout (5 s), so that the asker hears the store is unavailable; keep twice this
     * below sharding.ask-timeout.
     */
    private Duration queryTimeout = Duration.ofSeconds(2);

    /**
     * Longest time the JDBC store's writer waits for more writes before it begins a transaction, and only after a
     * transaction of at least 8 operations (writes arriving from many callers at once): fewer, larger transactions
     * carry the same writes, for up to this much more time per write. 0 never waits.
     */
    private Duration batchLinger = Duration.ofMillis(1);

    /**
     * Whether the JDBC store may use a database that acknowledges commits before they are on disk, and leave its
     * settings as they are: H2 with a write delay above 0, PostgreSQL with fsync=off or synchronous_commit=off. Such a
     * database loses acknowledged writes when its process (for H2, the node that serves the file) or its machine
     * dies. When false, the store sets H2's write delay to 0 and raises PostgreSQL's synchronous_commit to local in
     * its own transactions, and refuses to start where it cannot (an H2 user without admin rights, PostgreSQL with
     * fsync=off, an H2 URL that sets a write delay above 0).
     */
    private boolean allowNonDurableCommits;

    public StoreType getType() {
        return this.type;
    }

    public void setType(StoreType type) {
        this.type = type;
    }

    public String getTablePrefix() {
        return this.tablePrefix;
    }

    public void setTablePrefix(String tablePrefix) {
        this.tablePrefix = tablePrefix;
    }

    public Path getEmbeddedPath() {
        return this.embeddedPath;
    }

    public void setEmbeddedPath(Path embeddedPath) {
        this.embeddedPath = embeddedPath;
    }

    public DatabaseInitializationMode getInitializeSchema() {
        return this.initializeSchema;
    }

    public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public boolean isRemoveShardingData() {
        return this.removeShardingData;
    }

    public void setRemoveShardingData(boolean removeShardingData) {
        this.removeShardingData = removeShardingData;
    }

    public Duration getQueryTimeout() {
        return this.queryTimeout;
    }

    public void setQueryTimeout(Duration queryTimeout) {
        this.queryTimeout = queryTimeout;
    }

    public Duration getBatchLinger() {
        return this.batchLinger;
    }

    public void setBatchLinger(Duration batchLinger) {
        this.batchLinger = batchLinger;
    }

    public boolean isAllowNonDurableCommits() {
        return this.allowNonDurableCommits;
    }

    public void setAllowNonDurableCommits(boolean allowNonDurableCommits) {
        this.allowNonDurableCommits = allowNonDurableCommits;
    }

    /** The kinds of store. */
    public enum StoreType {
        /** A relational database over JDBC. */
        JDBC,
        /** Each node's memory, without durability. */
        MEMORY
    }
}
