package dev.sharding.store;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a {@link JdbcShardingStore}, immutable. Start from {@link #defaults()} and change with the
 * {@code withX} methods; {@link #validate()} names the first setting that is out of range.
 *
 * @param tablePrefix prepended to every table name; an unquoted SQL identifier
 * @param maxBatchSize the most queued operations committed in one transaction
 * @param readThreads how many threads run reads and epoch increments
 * @param closeTimeout how long {@link JdbcShardingStore#close()} lets queued work finish before failing the rest
 * @param queryTimeout the longest one statement may run, waiting for row locks included; the database enforces it.
 *     Reads, new epochs, coordinator lease requests and the store id also fail once they have waited twice as long in
 *     all (queued, connecting and running), and writes once the writer has waited that long for a connection, even
 *     when the database does not answer at all; a connection whose driver has no network timeout (H2's client of
 *     another process's server) is aborted once a call has used it for twice as long. The default (2 s) fails a
 *     call on a database that does not answer within the default ask timeout
 * @param batchLinger the longest the writer waits for more writes before it begins a transaction, and only when
 *     its previous transaction held at least {@link #LINGER_AFTER_BATCH_OF} operations (writes arriving from many
 *     callers at once): fewer, larger transactions for a little more time per write; zero never waits
 * @param allowNonDurableCommits whether the store accepts a database whose commits may return before they are on
 *     disk (H2's {@code WRITE_DELAY} above 0, PostgreSQL's {@code fsync=off} or {@code synchronous_commit=off}), and
 *     leaves such settings as they are. Off by default: the store then makes its own commits durable where it can
 *     (H2's write delay set to 0, PostgreSQL's {@code synchronous_commit} raised to {@code local} in its
 *     transactions) and refuses to work where it cannot. On, an acknowledged write can be lost when the database's
 *     process (H2: the node that serves the file) or machine dies
 */
public record JdbcStoreSettings(
        String tablePrefix,
        int maxBatchSize,
        int readThreads,
        Duration closeTimeout,
        Duration queryTimeout,
        Duration batchLinger,
        boolean allowNonDurableCommits) {

    /** Default table prefix. */
    public static final String DEFAULT_TABLE_PREFIX = "sharding_";
    /** Default largest batch. */
    public static final int DEFAULT_MAX_BATCH_SIZE = 1000;
    /** Default number of read threads. */
    public static final int DEFAULT_READ_THREADS = 2;
    /** Default close timeout. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Default query timeout: far above what any statement of the store takes on a database that answers (a batch of
     * 1000 writes commits in tens of milliseconds), and short enough that a call on a database that does not answer
     * fails at its deadline, twice this (4 s), within the default ask timeout (5 s): the asker then hears that the
     * store is unavailable (a retryable failure) rather than an ask timeout that says nothing of the cause.
     */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(2);
    /**
     * Default batch linger: on deposits from 64 callers over three nodes, waiting up to 1 ms for more writes makes
     * larger transactions, more deposits a second and a shorter tail than not waiting (docs/performance.md, "Where a
     * durable deposit's CPU goes", has the figures).
     */
    public static final Duration DEFAULT_BATCH_LINGER = Duration.ofMillis(1);
    /** The longest batch linger. */
    public static final Duration MAX_BATCH_LINGER = Duration.ofSeconds(1);
    /**
     * The writer lingers only after a transaction of at least this many operations: with fewer callers writing at
     * once, waiting would add to each write's time and save little.
     */
    public static final int LINGER_AFTER_BATCH_OF = 8;
    /** The longest query timeout: JDBC counts it in whole seconds of an int, and the database in milliseconds. */
    public static final Duration MAX_QUERY_TIMEOUT = Duration.ofDays(1);
    /** The longest prefix: PostgreSQL keeps 63 characters of a name, and the longest derived name adds 22. */
    public static final int MAX_TABLE_PREFIX_LENGTH = 40;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * Checks the arguments are not null.
     */
    public JdbcStoreSettings {
        Objects.requireNonNull(batchLinger, "batchLinger");
        Objects.requireNonNull(tablePrefix, "tablePrefix");
        Objects.requireNonNull(closeTimeout, "closeTimeout");
        Objects.requireNonNull(queryTimeout, "queryTimeout");
    }

    /**
     * Settings that refuse non-durable commits.
     *
     * @param tablePrefix prepended to every table name
     * @param maxBatchSize the most queued operations committed in one transaction
     * @param readThreads how many threads run reads and epoch increments
     * @param closeTimeout how long closing lets queued work finish
     * @param queryTimeout the longest one statement may run
     * @param batchLinger the longest the writer waits for more writes
     */
    public JdbcStoreSettings(
            String tablePrefix,
            int maxBatchSize,
            int readThreads,
            Duration closeTimeout,
            Duration queryTimeout,
            Duration batchLinger) {
        this(tablePrefix, maxBatchSize, readThreads, closeTimeout, queryTimeout, batchLinger, false);
    }

    /**
     * Settings with the default batch linger.
     *
     * @param tablePrefix prepended to every table name
     * @param maxBatchSize the most queued operations committed in one transaction
     * @param readThreads how many threads run reads and epoch increments
     * @param closeTimeout how long closing lets queued work finish
     * @param queryTimeout the longest one statement may run
     */
    public JdbcStoreSettings(
            String tablePrefix, int maxBatchSize, int readThreads, Duration closeTimeout, Duration queryTimeout) {
        this(tablePrefix, maxBatchSize, readThreads, closeTimeout, queryTimeout, DEFAULT_BATCH_LINGER);
    }

    /**
     * The defaults.
     *
     * @return settings with every default
     */
    public static JdbcStoreSettings defaults() {
        return new JdbcStoreSettings(
                DEFAULT_TABLE_PREFIX,
                DEFAULT_MAX_BATCH_SIZE,
                DEFAULT_READ_THREADS,
                DEFAULT_CLOSE_TIMEOUT,
                DEFAULT_QUERY_TIMEOUT,
                DEFAULT_BATCH_LINGER,
                false);
    }

    /**
     * Checks every setting.
     *
     * @return these settings
     * @throws IllegalArgumentException naming the first invalid setting, its value and the rule
     */
    public JdbcStoreSettings validate() {
        require(
                IDENTIFIER.matcher(tablePrefix).matches(),
                "table-prefix",
                tablePrefix,
                "must be a letter or '_' followed by letters, digits or '_'");
        require(
                tablePrefix.length() <= MAX_TABLE_PREFIX_LENGTH,
                "table-prefix",
                tablePrefix,
                "must be at most " + MAX_TABLE_PREFIX_LENGTH + " characters");
        require(maxBatchSize > 0, "max-batch-size", maxBatchSize, "must be positive");
        require(readThreads > 0, "read-threads", readThreads, "must be positive");
        require(!closeTimeout.isNegative(), "close-timeout", closeTimeout, "must not be negative");
        require(queryTimeout.toMillis() > 0, "query-timeout", queryTimeout, "must be at least 1ms");
        require(
                queryTimeout.compareTo(MAX_QUERY_TIMEOUT) <= 0,
                "query-timeout",
                queryTimeout,
                "must be at most " + MAX_QUERY_TIMEOUT);
        require(!batchLinger.isNegative(), "batch-linger", batchLinger, "must not be negative");
        require(
                batchLinger.compareTo(MAX_BATCH_LINGER) <= 0,
                "batch-linger",
                batchLinger,
                "must be at most " + MAX_BATCH_LINGER);
        return this;
    }

    private static void require(boolean ok, String name, @Nullable Object value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException("Invalid setting sharding.store." + name + "=" + value + ": " + rule);
        }
    }

    /**
     * Copy with another table prefix.
     *
     * @param value the new value
     * @return the copy
     */
    public JdbcStoreSettings withTablePrefix(String value) {
        return new JdbcStoreSettings(
                value, maxBatchSize, readThreads, closeTimeout, queryTimeout, batchLinger, allowNonDurableCommits);
    }

    /**
     * Copy with another largest batch.
     *
     * @param value the new value
     * @return the copy
     */
    public JdbcStoreSettings withMaxBatchSize(int value) {
        return new JdbcStoreSettings(
                tablePrefix, value, readThreads, closeTimeout, queryTimeout, batchLinger, allowNonDurableCommits);
    }

    /**
     * Copy with another number of read threads.
     *
     * @param value the new value
     * @return the copy
     */
    public JdbcStoreSettings withReadThreads(int value) {
        return new JdbcStoreSettings(
                tablePrefix, maxBatchSize, value, closeTimeout, queryTimeout, batchLinger, allowNonDurableCommits);
    }

    /**
     * Copy with another close timeout.
     *
     * @param value the new value
     * @return the copy
     */
    public JdbcStoreSettings withCloseTimeout(Duration value) {
        return new JdbcStoreSettings(
                tablePrefix, maxBatchSize, readThreads, value, queryTimeout, batchLinger, allowNonDurableCommits);
    }

    /**
     * Copy with another query timeout.
     *
     * @param value the new value
     * @return the copy
     */
    public JdbcStoreSettings withQueryTimeout(Duration value) {
        return new JdbcStoreSettings(
                tablePrefix, maxBatchSize, readThreads, closeTimeout, value, batchLinger, allowNonDurableCommits);
    }

    /**
     * Copy with another batch linger.
     *
     * @param value the new value
     * @return the copy
     */
    public JdbcStoreSettings withBatchLinger(Duration value) {
        return new JdbcStoreSettings(
                tablePrefix, maxBatchSize, readThreads, closeTimeout, queryTimeout, value, allowNonDurableCommits);
    }

    /**
     * Copy that accepts, or refuses, a database whose commits may return before they are on disk.
     *
     * @param value whether to accept it
     * @return the copy
     */
    public JdbcStoreSettings withAllowNonDurableCommits(boolean value) {
        return new JdbcStoreSettings(
                tablePrefix, maxBatchSize, readThreads, closeTimeout, queryTimeout, batchLinger, value);
    }
}
