package dev.sharding.store;

import dev.sharding.spi.NewEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The last step of a {@link WriteBatch} that appends events: once every key is decided, the snapshots of the accepted
 * appends are stored, then the batch takes its global offsets and writes its events and their tags, just before the
 * commit.
 *
 * <h2>Why a reader paging by offset never skips an event</h2>
 * Offsets come from one counter row ({@code <prefix>event_offset}), which the transaction increments by its number of
 * events ({@link JdbcDialect#takeOffsets}; on PostgreSQL in the statement that inserts the events) and so holds
 * locked until it commits or rolls back. Take two transactions A and B that append. Whichever increments the counter
 * second waits, at that statement, for the first to end: if the first commits, the second reads its increment and
 * gets higher offsets, and commits after it; if the first rolls back, its increment is undone and the second takes
 * the same offsets. So (1) offsets are handed out in commit order, and (2) the committed offsets are exactly 1..N,
 * with no hole: an offset a failed transaction took is taken again by the next. A reader's statement sees the
 * transactions committed before it began: in read committed, PostgreSQL gives each statement a snapshot taken at its
 * start, and H2 (2.x) gives each statement a consistent view of its tables' committed rows taken at its start. By (1)
 * those transactions hold a prefix 1..M of the offsets. So the reader's page "after offset x, in offset order" holds
 * every event of its tag or slice in (x, M] up to the page size, and an event committed later gets an offset above
 * M: above every offset the reader has seen, so the next page finds it. A transaction that began before others and
 * commits late cannot slip an event below what a reader has passed, because it took its offsets only after the ones
 * committed before it.
 *
 * <p>The counter is taken as late as possible (after the state rows, the snapshots and the remembered entities), so
 * that appends of different nodes wait for each other only while the events are inserted and the transaction commits.
 * Within one node the writer runs one transaction at a time anyway, and group commit puts many appends in each.
 */
final class JournalWrites {

    private JournalWrites() {}

    /**
     * Writes the snapshots, events and tags of the batch's accepted appends in the connection's transaction.
     *
     * @param connection the batch's connection
     * @param dialect the database's dialect
     * @param operations the batch's operations, in queue order
     * @param outcomes their outcomes, every key decided
     * @throws SQLException on failure; the transaction must be rolled back
     */
    static void write(
            Connection connection, JdbcDialect dialect, List<StoreOperation.Batched> operations, BatchOutcomes outcomes)
            throws SQLException {
        List<StoreOperation.Append> snapshots = new ArrayList<>();
        List<JournalSql.EventRow> events = new ArrayList<>();
        for (int i = 0; i < operations.size(); i++) {
            if (operations.get(i) instanceof StoreOperation.Append a
                    && outcomes.outcome(i) instanceof Outcome.Appended) {
                if (a.snapshot() != null) {
                    snapshots.add(a);
                }
                long sequenceNr = a.expectedLastSequenceNr();
                for (NewEvent event : a.events()) {
                    events.add(new JournalSql.EventRow(a, ++sequenceNr, event));
                }
            }
        }
        if (!snapshots.isEmpty()) {
            dialect.upsertSnapshots(connection, snapshots);
        }
        if (events.isEmpty()) {
            return;
        }
        // in queue order: an entity's events get increasing offsets, as their sequence numbers increase
        dialect.writeEvents(connection, events);
    }
}
