package dev.sharding.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The event journal's writes on PostgreSQL ({@link JournalWrites}): the offset counter's upsert, the events and their
 * tags in one statement with it, and the snapshots' upsert.
 */
final class PostgreSqlJournalWrites {

    private final PostgreSqlDialect dialect;

    /**
     * Creates the writes of a dialect.
     *
     * @param dialect the dialect, whose statements carry its time limits
     */
    PostgreSqlJournalWrites(PostgreSqlDialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Takes offsets in one upsert: concurrent first inserts of the counter row wait for each other rather than fail.
     *
     * @param connection the batch's connection
     * @param count how many
     * @return the last offset taken
     * @throws SQLException on failure
     */
    long takeOffsets(Connection connection, int count) throws SQLException {
        try (PreparedStatement ps = dialect.prepare(
                connection,
                "INSERT INTO " + dialect.journal().offsets + " AS o (id, last_offset) VALUES (1, ?) ON CONFLICT (id)"
                        + " DO UPDATE SET last_offset = o.last_offset + EXCLUDED.last_offset RETURNING last_offset")) {
            ps.setLong(1, count);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("The offset upsert of the event journal returned no row");
                }
                return rs.getLong(1);
            }
        }
    }

    /**
     * One statement, one round trip: the counter's upsert, then the events and their tags inserted from arrays
     * ({@code unnest ... WITH ORDINALITY}), their offsets counted from the counter's new value. The counter's row stays
     * locked from this statement to the commit, as in the portable SQL.
     *
     * @param connection the batch's connection
     * @param rows the events, in queue order
     * @throws SQLException on failure
     */
    void writeEvents(Connection connection, List<JournalSql.EventRow> rows) throws SQLException {
        int n = rows.size();
        String[] types = new String[n];
        String[] ids = new String[n];
        Long[] sequenceNrs = new Long[n];
        Integer[] shards = new Integer[n];
        Long[] epochs = new Long[n];
        String[] eventTypes = new String[n];
        Integer[] versions = new Integer[n];
        byte[][] payloads = new byte[n][];
        String[] tagTexts = new String[n];
        List<String> tagNames = new java.util.ArrayList<>();
        List<Long> tagOrdinals = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            JournalSql.EventRow row = rows.get(i);
            types[i] = row.append().typeName();
            ids[i] = row.append().entityId();
            sequenceNrs[i] = row.sequenceNr();
            shards[i] = row.append().shardId();
            epochs[i] = row.append().epoch();
            eventTypes[i] = row.event().eventType();
            versions[i] = row.event().eventVersion();
            payloads[i] = row.event().payload();
            tagTexts[i] = String.join(
                    String.valueOf(JournalSql.TAG_SEPARATOR), row.event().tags());
            for (String tag : row.event().tags()) {
                tagNames.add(tag);
                tagOrdinals.add(i + 1L);
            }
        }
        JournalSql journal = dialect.journal();
        try (PreparedStatement ps = dialect.prepare(
                connection,
                "WITH o AS (INSERT INTO " + journal.offsets + " AS c (id, last_offset) VALUES (1, ?) ON CONFLICT (id)"
                        + " DO UPDATE SET last_offset = c.last_offset + EXCLUDED.last_offset"
                        + " RETURNING last_offset - ? AS base),"
                        + " e AS (INSERT INTO " + journal.events + " (type_name, entity_id, sequence_nr, global_offset,"
                        + " shard_id, epoch, event_type, event_version, payload, tags, written_at)"
                        + " SELECT u.type_name, u.entity_id, u.sequence_nr, o.base + u.ord, u.shard_id, u.epoch,"
                        + " u.event_type, u.event_version, u.payload, u.tags, CURRENT_TIMESTAMP FROM o,"
                        + " unnest(?::text[], ?::text[], ?::bigint[], ?::integer[], ?::bigint[], ?::text[],"
                        + " ?::integer[], ?::bytea[], ?::text[]) WITH ORDINALITY AS u(type_name, entity_id,"
                        + " sequence_nr, shard_id, epoch, event_type, event_version, payload, tags, ord))"
                        + " INSERT INTO " + journal.tags + " (tag, global_offset) SELECT t.tag, o.base + t.ord FROM o,"
                        + " unnest(?::text[], ?::bigint[]) AS t(tag, ord)")) {
            int p = 1;
            ps.setLong(p++, n);
            ps.setLong(p++, n);
            ps.setArray(p++, connection.createArrayOf("text", types));
            ps.setArray(p++, connection.createArrayOf("text", ids));
            ps.setArray(p++, connection.createArrayOf("bigint", sequenceNrs));
            ps.setArray(p++, connection.createArrayOf("integer", shards));
            ps.setArray(p++, connection.createArrayOf("bigint", epochs));
            ps.setArray(p++, connection.createArrayOf("text", eventTypes));
            ps.setArray(p++, connection.createArrayOf("integer", versions));
            ps.setArray(p++, connection.createArrayOf("bytea", payloads));
            ps.setArray(p++, connection.createArrayOf("text", tagTexts));
            ps.setArray(p++, connection.createArrayOf("text", tagNames.toArray(String[]::new)));
            ps.setArray(p, connection.createArrayOf("bigint", tagOrdinals.toArray(Long[]::new)));
            ps.executeUpdate();
        }
    }

    /**
     * Stores snapshots, each in place of its entity's last one.
     *
     * @param connection the batch's connection
     * @param appends the appends with a snapshot
     * @throws SQLException on failure
     */
    void upsertSnapshots(Connection connection, List<StoreOperation.Append> appends) throws SQLException {
        try (PreparedStatement ps = dialect.prepare(
                connection,
                "INSERT INTO " + dialect.journal().snapshots
                        + " (type_name, entity_id, sequence_nr, payload, epoch, written_at)"
                        + " VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT (type_name, entity_id) DO UPDATE SET"
                        + " sequence_nr = EXCLUDED.sequence_nr, payload = EXCLUDED.payload, epoch = EXCLUDED.epoch,"
                        + " written_at = EXCLUDED.written_at")) {
            for (StoreOperation.Append a : appends) {
                JournalSql.bindSnapshot(ps, a);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
