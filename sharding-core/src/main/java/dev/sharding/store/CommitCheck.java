package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether a write transaction whose commit got no answer was committed, by reading back, on another
 * connection, one state row it wrote ({@link WriteBatch.Witness}). Its callers would otherwise hear that their writes
 * may or may not have been stored ({@code StoreOutcomeUnknownException}), as when the server of the embedded H2 file
 * stops in the middle of another node's commit during a rolling restart, or a PostgreSQL server restarts.
 *
 * <p>The row answers because only the shard's owner writes it under the shard's epoch, and this node's writer, the
 * one that wrote it, waits for the answer before any other transaction: the row is exactly as the transaction left it
 * if it was committed, and exactly as before it if not. Anything else (the shard moved meanwhile and its new owner
 * wrote the row) leaves the outcome unknown, as it was.
 */
final class CommitCheck {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** What the row says. */
    enum Verdict {
        /** The transaction was committed: its writes are stored. */
        COMMITTED,
        /** The transaction was not committed: nothing of it is stored, and it may be tried again. */
        NOT_COMMITTED,
        /** The row cannot tell, or could not be read by the deadline. */
        UNKNOWN
    }

    private final ConnectionSource connections;

    private final BatchWriter.Dialects dialects;

    private final StoreWatchdog watchdog;

    private final Duration queryTimeout;

    /**
     * A check over the writer's connections.
     *
     * @param connections where to read
     * @param dialects finds the database's dialect
     * @param watchdog aborts a read that passes its deadline
     * @param queryTimeout the longest a statement may run
     */
    CommitCheck(
            ConnectionSource connections,
            BatchWriter.Dialects dialects,
            StoreWatchdog watchdog,
            Duration queryTimeout) {
        this.connections = connections;
        this.dialects = dialects;
        this.watchdog = watchdog;
        this.queryTimeout = queryTimeout;
    }

    /**
     * Reads the witness's row until it tells, or until the deadline.
     *
     * @param witness the row the transaction wrote, and how it was before
     * @param deadline a {@link System#nanoTime()} value
     * @param pause called before each read with the attempt's number (from 1); false when there is no time left for
     *     it, or the writer stops
     * @return what the row says
     */
    Verdict check(WriteBatch.Witness witness, long deadline, LongPredicate pause) {
        for (int attempt = 1; pause.test(attempt); attempt++) {
            try {
                Verdict v = verdict(witness, read(witness, deadline));
                LOG.info(
                        "A store transaction whose commit got no answer was {}, as its row of [{}/{}] shows",
                        v == Verdict.COMMITTED
                                ? "committed"
                                : v == Verdict.NOT_COMMITTED ? "not committed; trying it again" : "of unknown outcome",
                        witness.typeName(),
                        witness.entityId());
                return v;
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Could not read back a store transaction's row yet (attempt {}): {}", attempt, e.toString());
            }
        }
        return Verdict.UNKNOWN;
    }

    private @Nullable StoredState read(WriteBatch.Witness witness, long deadline) throws SQLException {
        Duration limit = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        try (StoreConnection c = StoreConnection.open(connections, queryTimeout.multipliedBy(2), deadline, limit)) {
            Runnable disarm = watchdog.arm(c, limit, "read back of a commit that got no answer");
            try {
                Connection connection = c.connection();
                return dialects.of(connection).read(connection, witness.typeName(), witness.entityId());
            } catch (SQLException e) {
                throw c.explain(e);
            } finally {
                disarm.run();
            }
        }
    }

    /**
     * What a row read after the commit says of it.
     *
     * @param witness what the transaction wrote, and how the row was before
     * @param row the row now, or null when there is none
     * @return the verdict
     */
    static Verdict verdict(WriteBatch.Witness witness, @Nullable StoredState row) {
        if (row == null) {
            return witness.versionBefore() == 0 ? Verdict.NOT_COMMITTED : Verdict.UNKNOWN;
        }
        if (row.epoch() == witness.epoch()
                && row.version() == witness.version()
                && Arrays.equals(row.state(), witness.state())) {
            return Verdict.COMMITTED;
        }
        if (witness.versionBefore() > 0 && row.version() == witness.versionBefore() && row.epoch() <= witness.epoch()) {
            return Verdict.NOT_COMMITTED;
        }
        return Verdict.UNKNOWN;
    }
}
