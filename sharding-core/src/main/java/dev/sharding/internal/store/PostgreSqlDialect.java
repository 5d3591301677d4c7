package dev.sharding.internal.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL. A failed statement aborts the whole transaction there, so conflicts are never raised but skipped with
 * {@code ON CONFLICT DO NOTHING}; inserted rows are named by {@code RETURNING}, whatever the driver's batch
 * rewriting; epochs are incremented by one upsert.
 */
final class PostgreSqlDialect extends JdbcDialect {

    /** Most rows in one multi-row insert: 5 parameters each stays far below the protocol's 32767. */
    private static final int INSERT_CHUNK = 200;

    /** The first version with {@code plan_cache_mode}. */
    private static final int PLAN_CACHE_MODE_SINCE = 12;

    private final boolean forceCustomPlans;

    /**
     * Creates the dialect for the tables of a prefix.
     *
     * @param prefix the validated table prefix
     * @param majorVersion the server's major version
     */
    PostgreSqlDialect(String prefix, int majorVersion) {
        super(prefix);
        this.forceCustomPlans = majorVersion >= PLAN_CACHE_MODE_SINCE;
    }

    /**
     * Plans the batch's statements for their actual parameters. Otherwise, once the driver prepares them on the
     * server, PostgreSQL may keep a generic plan made while the table was empty: a sequential scan that compares
     * every row with every listed id, which took 25 ms per batch at 10,000 rows and grows with the table until
     * statistics happen to be refreshed.
     */
    @Override
    void beginBatch(Connection connection) throws SQLException {
        if (forceCustomPlans) {
            try (Statement st = connection.createStatement()) {
                st.execute("SET LOCAL plan_cache_mode = force_custom_plan");
            }
        }
    }

    @Override
    String name() {
        return "postgresql";
    }

    @Override
    boolean lockByRowValues() {
        // a btree scan with "entity_id = ANY(...)" under "type_name = ?" finds exactly the listed rows
        return false;
    }

    @Override
    boolean[] insertStates(Connection connection, List<StateRow> rows) throws SQLException {
        boolean[] inserted = new boolean[rows.size()];
        for (int from = 0; from < rows.size(); from += INSERT_CHUNK) {
            List<StateRow> chunk = rows.subList(from, Math.min(rows.size(), from + INSERT_CHUNK));
            String sql = "INSERT INTO " + states + " (type_name, entity_id, state, version, epoch, updated_at) VALUES "
                    + String.join(", ", Collections.nCopies(chunk.size(), "(?, ?, ?, ?, ?, CURRENT_TIMESTAMP)"))
                    + " ON CONFLICT (type_name, entity_id) DO NOTHING RETURNING type_name, entity_id";
            Set<EntityKey> done = new HashSet<>();
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                int p = 1;
                for (StateRow row : chunk) {
                    ps.setString(p++, row.typeName());
                    ps.setString(p++, row.entityId());
                    ps.setBytes(p++, row.state());
                    ps.setLong(p++, row.version());
                    ps.setLong(p++, row.epoch());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        done.add(new EntityKey(rs.getString(1), rs.getString(2)));
                    }
                }
            }
            for (int i = 0; i < chunk.size(); i++) {
                inserted[from + i] = done.contains(new EntityKey(chunk.get(i).typeName(), chunk.get(i).entityId()));
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
                + " (type_name, shard_id, entity_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")) {
            for (RememberedId id : ids) {
                bind(ps, id);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    @Override
    long nextEpoch(Connection connection, String typeName, int shardId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + epochs
                + " AS e (type_name, shard_id, epoch) VALUES (?, ?, 1) ON CONFLICT (type_name, shard_id)"
                + " DO UPDATE SET epoch = e.epoch + 1 RETURNING epoch")) {
            ps.setString(1, typeName);
            ps.setInt(2, shardId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("The epoch upsert of [" + typeName + "/shard " + shardId
                            + "] returned no row");
                }
                return rs.getLong(1);
            }
        }
    }
}
