package dev.sharding.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * H2 (2.x, any compatibility mode). H2 rolls back only the failed statement, not the transaction, so a duplicate key
 * on insert is caught and reported per row; epochs are incremented through a data change delta table.
 */
final class H2Dialect extends JdbcDialect {

    private static final String DUPLICATE_KEY = "23505";

    private static final int MAX_EPOCH_TRIES = 10;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     */
    H2Dialect(String prefix) {
        super(prefix);
    }

    @Override
    String name() {
        return "h2";
    }

    @Override
    boolean lockByRowValues() {
        // H2 uses the primary key for a list of row values, but for "type_name = ? AND entity_id IN (...)" only
        // its first column: every row of the type would be read
        return true;
    }

    @Override
    boolean[] insertStates(Connection connection, List<StateRow> rows) throws SQLException {
        boolean[] inserted = new boolean[rows.size()];
        if (rows.isEmpty()) {
            return inserted;
        }
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + states
                + " (type_name, entity_id, state, version, epoch, updated_at) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP)")) {
            for (int i = 0; i < rows.size(); i++) {
                StateRow row = rows.get(i);
                ps.setString(1, row.typeName());
                ps.setString(2, row.entityId());
                ps.setBytes(3, row.state());
                ps.setLong(4, row.version());
                ps.setLong(5, row.epoch());
                inserted[i] = insertUnlessDuplicate(ps);
            }
        }
        return inserted;
    }

    @Override
    void rememberIds(Connection connection, List<RememberedId> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + remembered
                + " (type_name, shard_id, entity_id) VALUES (?, ?, ?)")) {
            for (RememberedId id : ids) {
                bind(ps, id);
                insertUnlessDuplicate(ps);
            }
        }
    }

    @Override
    long nextEpoch(Connection connection, String typeName, int shardId) throws SQLException {
        try (PreparedStatement increment = connection.prepareStatement("SELECT epoch FROM FINAL TABLE (UPDATE "
                + epochs + " SET epoch = epoch + 1 WHERE type_name = ? AND shard_id = ?)");
                PreparedStatement insert = connection.prepareStatement("INSERT INTO " + epochs
                        + " (type_name, shard_id, epoch) VALUES (?, ?, 1)")) {
            increment.setString(1, typeName);
            increment.setInt(2, shardId);
            insert.setString(1, typeName);
            insert.setInt(2, shardId);
            for (int attempt = 0; attempt < MAX_EPOCH_TRIES; attempt++) {
                try (ResultSet rs = increment.executeQuery()) {
                    if (rs.next()) {
                        return rs.getLong(1);
                    }
                }
                if (insertUnlessDuplicate(insert)) {
                    return 1;
                }
                // another node inserted the shard's first epoch meanwhile: increment that one
            }
        }
        throw new SQLException("Could not increment the epoch of [" + typeName + "/shard " + shardId + "] in "
                + MAX_EPOCH_TRIES + " tries: its row kept appearing and disappearing");
    }

    private static boolean insertUnlessDuplicate(PreparedStatement ps) throws SQLException {
        try {
            ps.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (DUPLICATE_KEY.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }
}
