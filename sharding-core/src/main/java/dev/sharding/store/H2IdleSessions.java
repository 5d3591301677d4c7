package dev.sharding.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** H2's part of {@link IdleTransactionSweep}: finds and aborts the sessions that abandoned a transaction. */
final class H2IdleSessions {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcShardingStore.class);

    /** H2's error code for a statement that needs an administrator. */
    private static final int ADMIN_RIGHTS_REQUIRED = 90040;

    private H2IdleSessions() {}

    /**
     * Aborts the sessions H2 lists as sleeping with uncommitted changes since longer than the limit, by the
     * database's clock, that hold a lock on a table of the prefix ({@code INFORMATION_SCHEMA.SESSIONS} and {@code
     * LOCKS}), each with {@code ABORT_SESSION}: its transaction is rolled back and its locks released.
     *
     * @param connection a connection in auto-commit mode
     * @param prefix the store's table prefix
     * @param idleLimit how long a session may sit idle in a transaction
     * @return how many were aborted, or -1 when the user may not abort sessions
     * @throws SQLException on failure
     */
    static int abortIdle(Connection connection, String prefix, Duration idleLimit) throws SQLException {
        String tables = prefix.toUpperCase(java.util.Locale.ROOT)
                        .replace("\\", "\\\\")
                        .replace("_", "\\_")
                        .replace("%", "\\%")
                + "%";
        List<long[]> idle = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT s.SESSION_ID,"
                + " DATEDIFF(MILLISECOND, s.SLEEP_SINCE, CURRENT_TIMESTAMP) FROM INFORMATION_SCHEMA.SESSIONS s"
                + " WHERE s.CONTAINS_UNCOMMITTED AND s.SESSION_STATE = 'SLEEP' AND s.SESSION_ID <> SESSION_ID()"
                + " AND s.SLEEP_SINCE < DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)"
                + " AND EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.LOCKS l WHERE l.SESSION_ID = s.SESSION_ID"
                + " AND UPPER(l.TABLE_NAME) LIKE ? ESCAPE '\\')")) {
            ps.setLong(1, -idleLimit.toMillis());
            ps.setString(2, tables);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    idle.add(new long[] {rs.getLong(1), rs.getLong(2)});
                }
            }
        }
        int aborted = 0;
        for (long[] session : idle) {
            try (PreparedStatement ps = connection.prepareStatement("SELECT ABORT_SESSION(?)")) {
                aborted += abort(ps, session, idleLimit);
            } catch (SQLException e) {
                if (e.getErrorCode() == ADMIN_RIGHTS_REQUIRED) {
                    return -1;
                }
                throw e;
            }
        }
        return aborted;
    }

    private static int abort(PreparedStatement ps, long[] session, Duration idleLimit) throws SQLException {
        ps.setLong(1, session[0]);
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return 0; // it ended meanwhile
            }
        }
        LOG.warn(
                "Aborted database session {}: it sat in a transaction holding rows of the sharding tables for {} ms,"
                        + " longer than any of the store's transactions may take ({}) (its client lost its connection"
                        + " where the database could not hear it, or hangs); the rows of its shards are free again",
                session[0],
                session[1],
                StoreTimeouts.format(idleLimit));
        return 1;
    }
}
