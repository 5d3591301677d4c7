package dev.sharding.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The projection offsets of a {@link JdbcShardingStore}: one row per projection and slice in
 * {@code <prefix>projection_offset}, moved by a compare-and-set on the offset the worker read. For exactly-once
 * projections, the move and the handler's writes share one transaction ({@link #inTransaction}): the offset row is
 * moved first (and so held until the commit), then the handler runs; if it fails, both roll back.
 */
final class JdbcProjectionOffsets {

    /** What a handler does in the offset's transaction. */
    @FunctionalInterface
    interface Work {

        /**
         * Runs in the transaction.
         *
         * @param connection its connection
         * @throws SQLException to roll it back
         */
        void run(Connection connection) throws SQLException;
    }

    private final ConnectionTasks tasks;

    private final String select;

    private final String update;

    private final String insert;

    JdbcProjectionOffsets(ConnectionTasks tasks, String tablePrefix) {
        this.tasks = tasks;
        String table = tablePrefix + "projection_offset";
        this.select = "SELECT last_offset FROM " + table + " WHERE projection_name = ? AND slice = ?";
        this.update = "UPDATE " + table + " SET last_offset = ?, updated_at = CURRENT_TIMESTAMP"
                + " WHERE projection_name = ? AND slice = ? AND last_offset = ?";
        this.insert = "INSERT INTO " + table + " (projection_name, slice, last_offset, updated_at)"
                + " VALUES (?, ?, ?, CURRENT_TIMESTAMP)";
    }

    /** See {@link dev.sharding.spi.ProjectionOffsets#projectionOffset}. */
    CompletableFuture<Long> offset(String projection, int slice) {
        CompletableFuture<Long> invalid = check(projection, slice, 0, 0);
        if (invalid != null) {
            return invalid;
        }
        return tasks.onReader(
                "read of the offset of projection " + projection + "/" + slice,
                ConnectionTasks.Mode.AUTO_COMMIT,
                (c, d) -> {
                    try (PreparedStatement s = c.prepareStatement(select)) {
                        s.setString(1, projection);
                        s.setInt(2, slice);
                        try (ResultSet rs = s.executeQuery()) {
                            return rs.next() ? rs.getLong(1) : 0L;
                        }
                    }
                });
    }

    /** See {@link dev.sharding.spi.ProjectionOffsets#saveProjectionOffset}. */
    CompletableFuture<Boolean> save(String projection, int slice, long expected, long offset) {
        return inTransaction(projection, slice, expected, offset, c -> {});
    }

    /**
     * Moves the offset and runs the work in one transaction.
     *
     * @return whether the offset moved (and the work was committed); false when the slice is no longer at
     *     {@code expected}, and the work did not run
     */
    CompletableFuture<Boolean> inTransaction(String projection, int slice, long expected, long offset, Work work) {
        CompletableFuture<Boolean> invalid = check(projection, slice, expected, offset);
        if (invalid != null) {
            return invalid;
        }
        return tasks.onReader(
                "move of projection " + projection + "/" + slice + " from offset " + expected + " to " + offset,
                ConnectionTasks.Mode.TRANSACTION,
                (c, d) -> {
                    if (!move(c, projection, slice, expected, offset)) {
                        return false;
                    }
                    work.run(c);
                    return true;
                });
    }

    private boolean move(Connection c, String projection, int slice, long expected, long offset) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(update)) {
            s.setLong(1, offset);
            s.setString(2, projection);
            s.setInt(3, slice);
            s.setLong(4, expected);
            if (s.executeUpdate() == 1) {
                return true;
            }
        }
        if (expected != 0) {
            return false;
        }
        // the first save of the slice: the row is made; a concurrent first save makes this one fail
        try (PreparedStatement s = c.prepareStatement(select)) {
            s.setString(1, projection);
            s.setInt(2, slice);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next()) {
                    return false;
                }
            }
        }
        try (PreparedStatement s = c.prepareStatement(insert)) {
            s.setString(1, projection);
            s.setInt(2, slice);
            s.setLong(3, offset);
            s.executeUpdate();
            return true;
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) { // unique violation, on H2 and PostgreSQL
                throw new SQLException(
                        "Another instance saved the first offset of projection " + projection + "/" + slice
                                + " at the same time",
                        e);
            }
            throw e;
        }
    }

    private static <T> @Nullable CompletableFuture<T> check(String projection, int slice, long expected, long offset) {
        if (projection == null || projection.isEmpty() || projection.length() > 255 || slice < 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "A projection is named with 1 to 255 characters and its slices are numbered from 0: " + projection
                            + "/" + slice));
        }
        if (expected < 0 || offset < expected) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("The offset of projection " + projection
                    + "/" + slice + " may only move forward, not from " + expected + " to " + offset));
        }
        return null;
    }
}
