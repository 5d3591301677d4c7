package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The dialect of a {@link JdbcShardingStore}'s database, found on the first connection, whose durability it checks
 * first: a database the store refuses fails every operation, each with the report. Shared by the store's threads.
 */
final class DetectedDialect implements BatchWriter.Dialects {

    private final JdbcStoreSettings settings;

    private volatile @Nullable JdbcDialect dialect;

    /**
     * Creates the finder; nothing is detected yet.
     *
     * @param settings the store's validated settings
     */
    DetectedDialect(JdbcStoreSettings settings) {
        this.settings = settings;
    }

    @Override
    public JdbcDialect of(Connection connection) throws SQLException {
        JdbcDialect d = dialect;
        if (d == null) {
            d = JdbcDialect.detect(connection, settings);
            d.checkDurability(connection);
            dialect = d;
        }
        return d;
    }

    /** A call failed: the database may be served by another process now ({@link JdbcDialect#mayHaveMoved()}). */
    void mayHaveMoved() {
        JdbcDialect d = dialect;
        if (d != null) {
            d.mayHaveMoved();
        }
    }
}
