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
     * Aborts the sessions H2 lists as sleeping with uncommitted changes that hold a lock on a table of the prefix
     * ({@code INFORMATION_SCHEMA.SESSIONS} and {@code LOCKS}), sleeping since longer than the idle limit by the
     * database's clock, or since longer than the blocking limit while another session waits for them (its {@code
     * BLOCKER_ID}); each with {@code ABORT_SESSION}: its transaction is rolled back and its locks released.
     *
     * @param connection a connection in auto-commit mode
     * @param prefix the store's table prefix
     * @param idleLimit how long a session may sit idle in a transaction
     * @param blockingLimit how long it may while another session waits for one of its locks
     * @return how many were aborted, or -1 when the user may not abort sessions
     * @throws SQLException on failure
     */
    static int abortIdle(Connection connection, String prefix, Duration idleLimit, Duration blockingLimit)
            throws SQLException {
        String tables = prefix.toUpperCase(java.util.Locale.ROOT)
                        .replace("\\", "\\\\")
                        .replace("_", "\\_")
                        .replace("%", "\\%")
                + "%";
        List<Idle> idle = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT s.SESSION_ID,"
                + " DATEDIFF(MILLISECOND, s.SLEEP_SINCE, CURRENT_TIMESTAMP), b.WAITING"
                + " FROM INFORMATION_SCHEMA.SESSIONS s LEFT JOIN (SELECT BLOCKER_ID, COUNT(*) WAITING"
                + " FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL GROUP BY BLOCKER_ID) b"
                + " ON b.BLOCKER_ID = s.SESSION_ID"
                + " WHERE s.CONTAINS_UNCOMMITTED AND s.SESSION_STATE = 'SLEEP' AND s.SESSION_ID <> SESSION_ID()"
                + " AND (s.SLEEP_SINCE < DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)"
                + " OR b.WAITING IS NOT NULL AND s.SLEEP_SINCE < DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP))"
                + " AND EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.LOCKS l WHERE l.SESSION_ID = s.SESSION_ID"
                + " AND UPPER(l.TABLE_NAME) LIKE ? ESCAPE '\\')")) {
            ps.setLong(1, -idleLimit.toMillis());
            ps.setLong(2, -blockingLimit.toMillis());
            ps.setString(3, tables);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    idle.add(new Idle(rs.getLong(1), rs.getLong(2), rs.getInt(3)));
                }
            }
        }
        int aborted = 0;
        for (Idle session : idle) {
            try (PreparedStatement ps = connection.prepareStatement("SELECT ABORT_SESSION(?)")) {
                aborted += abort(ps, session, session.waiting() > 0 ? blockingLimit : idleLimit);
            } catch (SQLException e) {
                if (e.getErrorCode() == ADMIN_RIGHTS_REQUIRED) {
                    return -1;
                }
                throw e;
            }
        }
        return aborted;
    }

    /** A session found idle in a transaction: for how long, and how many sessions wait for it. */
    private record Idle(long id, long idleMillis, int waiting) {}

    private static int abort(PreparedStatement ps, Idle session, Duration limit) throws SQLException {
        ps.setLong(1, session.id());
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next() || !rs.getBoolean(1)) {
                return 0; // it ended meanwhile
            }
        }
        if (session.waiting() > 0) {
            LOG.warn(
                    "Aborted database session {}: it sat in a transaction for {} ms holding rows of the sharding tables"
                            + " that {} other session(s) waited for, longer than allowed ({}, half the query timeout)"
                            + " (its client is slow to reach the database, paused, or lost its connection where the"
                            + " database could not hear it); the rows are free again and its transaction rolled back",
                    session.id(),
                    session.idleMillis(),
                    session.waiting(),
                    StoreTimeouts.format(limit));
        } else {
            LOG.warn(
                    "Aborted database session {}: it sat in a transaction holding rows of the sharding tables for {} ms,"
                            + " longer than any of the store's transactions may take ({}) (its client lost its"
                            + " connection where the database could not hear it, or hangs); the rows of its shards are"
                            + " free again",
                    session.id(),
                    session.idleMillis(),
                    StoreTimeouts.format(limit));
        }
        return 1;
    }
}
