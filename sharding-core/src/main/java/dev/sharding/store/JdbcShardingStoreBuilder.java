package dev.sharding.store;

import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Builds a {@link JdbcShardingStore}: the data source, then any setting that differs from
 * {@link JdbcStoreSettings#defaults()}.
 *
 * <pre>{@code
 * JdbcShardingStore store = JdbcShardingStore.builder(dataSource)
 *         .tablePrefix("orders_")
 *         .queryTimeout(Duration.ofSeconds(5))
 *         .build();
 * store.createSchema(); // unless the tables are created by your own migrations
 * }</pre>
 *
 * <p>Not thread-safe; each {@link #build()} starts a new store with its own threads, to be closed with
 * {@link JdbcShardingStore#close()}.
 */
public final class JdbcShardingStoreBuilder {

    private final DataSource dataSource;

    private JdbcStoreSettings settings = JdbcStoreSettings.defaults();

    JdbcShardingStoreBuilder(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Takes every setting at once.
     *
     * @param value the settings
     * @return this builder
     */
    public JdbcShardingStoreBuilder settings(JdbcStoreSettings value) {
        settings = Objects.requireNonNull(value, "settings");
        return this;
    }

    /**
     * Sets the prefix of every table name ({@code sharding_} by default).
     *
     * @param value an unquoted SQL identifier
     * @return this builder
     */
    public JdbcShardingStoreBuilder tablePrefix(String value) {
        settings = settings.withTablePrefix(value);
        return this;
    }

    /**
     * Sets the most queued operations committed in one transaction.
     *
     * @param value the batch size
     * @return this builder
     */
    public JdbcShardingStoreBuilder maxBatchSize(int value) {
        settings = settings.withMaxBatchSize(value);
        return this;
    }

    /**
     * Sets how many threads run reads and epoch increments, each on a connection of its own.
     *
     * @param value the thread count
     * @return this builder
     */
    public JdbcShardingStoreBuilder readThreads(int value) {
        settings = settings.withReadThreads(value);
        return this;
    }

    /**
     * Sets how long {@link JdbcShardingStore#close()} lets queued work finish before failing the rest.
     *
     * @param value the timeout
     * @return this builder
     */
    public JdbcShardingStoreBuilder closeTimeout(Duration value) {
        settings = settings.withCloseTimeout(value);
        return this;
    }

    /**
     * Sets the longest one statement may run, waiting for row locks included.
     *
     * @param value the timeout
     * @return this builder
     */
    public JdbcShardingStoreBuilder queryTimeout(Duration value) {
        settings = settings.withQueryTimeout(value);
        return this;
    }

    /**
     * Sets the longest the writer waits for more writes before it begins a transaction, when writes arrive from many
     * callers at once (1 ms by default; zero never waits).
     *
     * @param value the linger
     * @return this builder
     */
    public JdbcShardingStoreBuilder batchLinger(Duration value) {
        settings = settings.withBatchLinger(value);
        return this;
    }

    /**
     * Sets whether the store accepts a database whose commits may return before they are on disk (H2's write delay,
     * PostgreSQL's {@code fsync=off} or {@code synchronous_commit=off}) and leaves its settings as they are; false
     * by default, when the store makes its commits durable or refuses to work. True loses acknowledged writes when
     * the database's process or machine dies.
     *
     * @param value whether to accept non-durable commits
     * @return this builder
     */
    public JdbcShardingStoreBuilder allowNonDurableCommits(boolean value) {
        settings = settings.withAllowNonDurableCommits(value);
        return this;
    }

    /**
     * Starts the store; the database is first used by its first operation.
     *
     * @return the store
     * @throws IllegalArgumentException naming the first invalid setting
     */
    public JdbcShardingStore build() {
        return new JdbcShardingStore(dataSource, settings);
    }
}
