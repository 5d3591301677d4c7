package dev.sharding.store;

import dev.sharding.spi.NewEvent;
import dev.sharding.spi.PersistedEvent;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.ShardingStore.StoredState;
import dev.sharding.spi.Snapshot;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The event journal of a {@link JdbcShardingStore} in the SQL every database accepts: the events, their tags and the
 * snapshots, written in a write batch ({@link JournalWrites}) and read on the read threads. The dialects add the
 * statements that differ: the global offset counter ({@link JdbcDialect#takeOffsets}) and the snapshot upsert
 * ({@link JdbcDialect#upsertSnapshots}). Every method runs in the caller's transaction on the caller's connection.
 *
 * <p>The tables: {@code <prefix>event_journal} (one row per event, keyed by type, entity and sequence number, with a
 * unique global offset), {@code <prefix>event_tag} (one row per tag of an event, keyed by tag and offset),
 * {@code <prefix>event_snapshot} (the latest snapshot per entity) and {@code <prefix>event_offset} (one row: the last
 * offset handed out). An entity's journal head is its state row.
 */
final class JournalSql {

    /** Separates the tags of an event in its row's {@code tags}; tags have no control character. */
    static final char TAG_SEPARATOR = '\u001f';

    private static final String EVENT_COLUMNS = "j.type_name, j.entity_id, j.sequence_nr, j.global_offset, j.shard_id,"
            + " j.event_type, j.event_version, j.payload, j.tags, j.written_at";

    private final PortableSql sql;

    /** The event table. */
    final String events;

    /** The tag table. */
    final String tags;

    /** The snapshot table. */
    final String snapshots;

    /** The offset counter table. */
    final String offsets;

    /**
     * Creates the journal SQL of a dialect.
     *
     * @param sql the dialect, whose statements carry its time limits
     * @param prefix the validated table prefix
     */
    JournalSql(PortableSql sql, String prefix) {
        this.sql = sql;
        this.events = prefix + "event_journal";
        this.tags = prefix + "event_tag";
        this.snapshots = prefix + "event_snapshot";
        this.offsets = prefix + "event_offset";
    }

    /**
     * One event to insert.
     *
     * @param append the append it belongs to
     * @param sequenceNr its sequence number
     * @param event the event
     */
    record EventRow(StoreOperation.Append append, long sequenceNr, NewEvent event) {}

    /**
     * Inserts events and their tags, with consecutive offsets in list order.
     *
     * @param connection the batch's connection
     * @param rows the events
     * @param firstOffset the offset of the first
     * @throws SQLException on failure, as a duplicate sequence number (which the state row's lock rules out)
     */
    void insertEvents(Connection connection, List<EventRow> rows, long firstOffset) throws SQLException {
        boolean anyTags = false;
        try (PreparedStatement ps = sql.prepare(
                connection,
                "INSERT INTO " + events + " (type_name, entity_id, sequence_nr, global_offset, shard_id, epoch,"
                        + " event_type, event_version, payload, tags, written_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)")) {
            long offset = firstOffset;
            for (EventRow row : rows) {
                StoreOperation.Append a = row.append();
                ps.setString(1, a.typeName());
                ps.setString(2, a.entityId());
                ps.setLong(3, row.sequenceNr());
                ps.setLong(4, offset++);
                ps.setInt(5, a.shardId());
                ps.setLong(6, a.epoch());
                ps.setString(7, row.event().eventType());
                ps.setInt(8, row.event().eventVersion());
                ps.setBytes(9, row.event().payload());
                ps.setString(
                        10,
                        String.join(String.valueOf(TAG_SEPARATOR), row.event().tags()));
                ps.addBatch();
                anyTags |= !row.event().tags().isEmpty();
            }
            ps.executeBatch();
        }
        if (!anyTags) {
            return;
        }
        try (PreparedStatement ps =
                sql.prepare(connection, "INSERT INTO " + tags + " (tag, global_offset) VALUES (?, ?)")) {
            long offset = firstOffset;
            for (EventRow row : rows) {
                for (String tag : row.event().tags()) {
                    ps.setString(1, tag);
                    ps.setLong(2, offset);
                    ps.addBatch();
                }
                offset++;
            }
            ps.executeBatch();
        }
    }

    /**
     * Binds an append's snapshot to the first five parameters: type, id, sequence number, payload, epoch.
     *
     * @param ps the statement
     * @param a an append with a snapshot
     * @throws SQLException on failure
     */
    static void bindSnapshot(PreparedStatement ps, StoreOperation.Append a) throws SQLException {
        Snapshot snapshot = java.util.Objects.requireNonNull(a.snapshot(), "snapshot");
        ps.setString(1, a.typeName());
        ps.setString(2, a.entityId());
        ps.setLong(3, snapshot.sequenceNr());
        ps.setBytes(4, snapshot.payload());
        ps.setLong(5, a.epoch());
    }

    /**
     * The last sequence numbers in the journal of some entities of one type.
     *
     * @param connection the connection
     * @param typeName the type
     * @param ids the ids
     * @return the last sequence number by id, for those with events
     * @throws SQLException on failure
     */
    Map<String, Long> lastSequenceNrs(Connection connection, String typeName, List<String> ids) throws SQLException {
        Map<String, Long> found = new HashMap<>();
        sql.keyLocking()
                .selectIds(
                        sql,
                        connection,
                        typeName,
                        ids,
                        condition -> "SELECT entity_id, MAX(sequence_nr) FROM " + events + " WHERE " + condition
                                + " GROUP BY entity_id",
                        rs -> found.put(rs.getString(1), rs.getLong(2)));
        return found;
    }

    /**
     * Reads what an entity recovers from. The snapshot is read first, then the head (its state row), then the events
     * up to the head's sequence number: whatever commits between the statements, the events read are exactly those
     * after the snapshot and up to the head, since an append stores its snapshot, head and events in one transaction.
     *
     * @param connection the connection
     * @param typeName the type
     * @param entityId the id
     * @return the recovery
     * @throws SQLException on failure
     */
    Recovery recover(Connection connection, String typeName, String entityId) throws SQLException {
        @Nullable Snapshot snapshot = null;
        try (PreparedStatement ps = sql.prepare(
                connection,
                "SELECT sequence_nr, payload FROM " + snapshots + " WHERE type_name = ? AND entity_id = ?")) {
            ps.setString(1, typeName);
            ps.setString(2, entityId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    snapshot = new Snapshot(rs.getLong(1), rs.getBytes(2));
                }
            }
        }
        @Nullable StoredState head = sql.read(connection, typeName, entityId);
        long last = head != null
                ? head.version()
                : lastSequenceNrs(connection, typeName, List.of(entityId)).getOrDefault(entityId, 0L);
        long after = snapshot == null ? 0 : snapshot.sequenceNr();
        List<PersistedEvent> found = new ArrayList<>();
        if (last > after) {
            try (PreparedStatement ps = sql.prepare(
                    connection,
                    "SELECT " + EVENT_COLUMNS + " FROM " + events + " j WHERE j.type_name = ? AND j.entity_id = ?"
                            + " AND j.sequence_nr > ? AND j.sequence_nr <= ? ORDER BY j.sequence_nr")) {
                ps.setString(1, typeName);
                ps.setString(2, entityId);
                ps.setLong(3, after);
                ps.setLong(4, last);
                readEvents(ps, found);
            }
        }
        return new Recovery(
                snapshot, found, last, head == null ? 0 : head.epoch(), head == null ? null : head.applied());
    }

    /**
     * An entity's events from a sequence number on.
     *
     * @param connection the connection
     * @param typeName the type
     * @param entityId the id
     * @param fromSequenceNr the first wanted
     * @param maxCount the most to read
     * @return the events in sequence order
     * @throws SQLException on failure
     */
    List<PersistedEvent> eventsOf(
            Connection connection, String typeName, String entityId, long fromSequenceNr, int maxCount)
            throws SQLException {
        try (PreparedStatement ps = sql.prepare(
                connection,
                "SELECT " + EVENT_COLUMNS + " FROM " + events + " j WHERE j.type_name = ? AND j.entity_id = ?"
                        + " AND j.sequence_nr >= ? ORDER BY j.sequence_nr LIMIT ?")) {
            ps.setString(1, typeName);
            ps.setString(2, entityId);
            ps.setLong(3, fromSequenceNr);
            ps.setInt(4, maxCount);
            return readEvents(ps, new ArrayList<>());
        }
    }

    /**
     * A tag's events after an offset, in one statement (so from one view of what is committed).
     *
     * @param connection the connection
     * @param tag the tag
     * @param afterOffset the last offset read
     * @param maxCount the most to read
     * @return the events in offset order
     * @throws SQLException on failure
     */
    List<PersistedEvent> eventsByTag(Connection connection, String tag, long afterOffset, int maxCount)
            throws SQLException {
        try (PreparedStatement ps = sql.prepare(
                connection,
                "SELECT " + EVENT_COLUMNS + " FROM " + tags + " t JOIN " + events
                        + " j ON j.global_offset = t.global_offset WHERE t.tag = ? AND t.global_offset > ?"
                        + " ORDER BY t.global_offset LIMIT ?")) {
            ps.setString(1, tag);
            ps.setLong(2, afterOffset);
            ps.setInt(3, maxCount);
            return readEvents(ps, new ArrayList<>());
        }
    }

    /**
     * A slice's events after an offset, in one statement.
     *
     * @param connection the connection
     * @param typeName the type
     * @param minShardId the first shard
     * @param maxShardId the last shard
     * @param afterOffset the last offset read
     * @param maxCount the most to read
     * @return the events in offset order
     * @throws SQLException on failure
     */
    List<PersistedEvent> eventsBySlice(
            Connection connection, String typeName, int minShardId, int maxShardId, long afterOffset, int maxCount)
            throws SQLException {
        try (PreparedStatement ps = sql.prepare(
                connection,
                "SELECT " + EVENT_COLUMNS + " FROM " + events + " j WHERE j.type_name = ? AND j.global_offset > ?"
                        + " AND j.shard_id BETWEEN ? AND ? ORDER BY j.global_offset LIMIT ?")) {
            ps.setString(1, typeName);
            ps.setLong(2, afterOffset);
            ps.setInt(3, minShardId);
            ps.setInt(4, maxShardId);
            ps.setInt(5, maxCount);
            return readEvents(ps, new ArrayList<>());
        }
    }

    /**
     * The last offset handed out.
     *
     * @param connection the connection
     * @return the offset, 0 before the first event
     * @throws SQLException on failure
     */
    long lastOffset(Connection connection) throws SQLException {
        try (PreparedStatement ps = sql.prepare(connection, "SELECT last_offset FROM " + offsets + " WHERE id = 1");
                ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static List<PersistedEvent> readEvents(PreparedStatement ps, List<PersistedEvent> into)
            throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String tagText = rs.getString(9);
                Set<String> tagSet = tagText == null || tagText.isEmpty()
                        ? Set.of()
                        : Set.of(tagText.split(String.valueOf(TAG_SEPARATOR)));
                into.add(new PersistedEvent(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getInt(5),
                        rs.getString(6),
                        rs.getInt(7),
                        rs.getBytes(8),
                        tagSet,
                        rs.getObject(10, OffsetDateTime.class).toInstant()));
            }
        }
        return into;
    }
}
