package dev.sharding.store;

import dev.sharding.spi.ShardingStore.StoredState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The state reads of a {@link JdbcShardingStore}, served together: the reads queued when a read thread comes free are
 * answered by one statement per type (and per {@link PortableSql#LOCK_CHUNK} ids), rather than one round trip each.
 * When a failover or a rebalance starts many shards at once, each of their entities reads its state as its first
 * message arrives; on an H2 file served by another node (or a database across the network) those round trips, two
 * read threads deep, were what the entities waited for. A read that comes alone is one statement, as before.
 */
final class StateReads {

    private final CoalescedTasks<Read, Map<String, Map<String, StoredState>>> reads;

    /**
     * Creates the reads of a store.
     *
     * @param tasks the store's read threads
     * @param readThreads how many there are: the most read tasks queued or running at once
     */
    StateReads(ConnectionTasks tasks, int readThreads) {
        this.reads = new CoalescedTasks<>(
                tasks,
                ConnectionTasks.Mode.AUTO_COMMIT,
                "read of entity states",
                readThreads,
                PortableSql.LOCK_CHUNK,
                StateReads::readAll,
                StateReads::complete);
    }

    /**
     * Reads an entity's state.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @return its state, empty when it has none
     */
    CompletableFuture<Optional<StoredState>> read(String typeName, String entityId) {
        Read read = new Read(typeName, entityId, new CompletableFuture<>());
        reads.add(read);
        return read.future();
    }

    /** A read waiting for its batch. */
    record Read(String typeName, String entityId, CompletableFuture<Optional<StoredState>> future)
            implements CoalescedTasks.Request {

        @Override
        public String what() {
            return "read of the state of [" + typeName + "/" + entityId + "]";
        }
    }

    /** The states found for a batch's ids, by type and id. */
    private static Map<String, Map<String, StoredState>> readAll(
            Connection connection, JdbcDialect sql, List<Read> batch) throws SQLException {
        Map<String, Set<String>> idsByType = new LinkedHashMap<>();
        for (Read r : batch) {
            idsByType.computeIfAbsent(r.typeName(), t -> new LinkedHashSet<>()).add(r.entityId());
        }
        Map<String, Map<String, StoredState>> found = new HashMap<>();
        for (Map.Entry<String, Set<String>> type : idsByType.entrySet()) {
            found.put(type.getKey(), readAll(connection, sql, type.getKey(), new ArrayList<>(type.getValue())));
        }
        return found;
    }

    private static Map<String, StoredState> readAll(
            Connection connection, PortableSql sql, String typeName, List<String> ids) throws SQLException {
        Map<String, StoredState> found = new HashMap<>();
        if (ids.size() == 1) {
            // a read that came alone: the plain statement
            StoredState one = sql.read(connection, typeName, ids.get(0));
            if (one != null) {
                found.put(ids.get(0), one);
            }
            return found;
        }
        sql.keyLocking()
                .selectIds(
                        sql,
                        connection,
                        typeName,
                        ids,
                        condition -> "SELECT entity_id, state, version, epoch, applied_messages FROM " + sql.states
                                + " WHERE " + condition,
                        rs -> found.put(
                                rs.getString(1),
                                new StoredState(rs.getBytes(2), rs.getLong(3), rs.getLong(4), rs.getBytes(5))));
        return found;
    }

    /** Answers each read; two reads of one entity in a batch get a copy each, as two round trips would have. */
    private static void complete(List<Read> batch, Map<String, Map<String, StoredState>> found) {
        Map<String, Set<String>> answered = new HashMap<>();
        for (Read r : batch) {
            StoredState state = found.getOrDefault(r.typeName(), Map.of()).get(r.entityId());
            if (state != null
                    && !answered.computeIfAbsent(r.typeName(), t -> new java.util.HashSet<>())
                            .add(r.entityId())) {
                state = new StoredState(
                        state.state().clone(),
                        state.version(),
                        state.epoch(),
                        state.applied() == null ? null : state.applied().clone());
            }
            r.future().complete(Optional.ofNullable(state));
        }
    }
}
