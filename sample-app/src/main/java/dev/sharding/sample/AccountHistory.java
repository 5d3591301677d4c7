package dev.sharding.sample;

import dev.sharding.ProjectedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * The history of every account, a read model kept by the projection {@value #PROJECTION}: one row per deposit in the
 * table {@code account_history} of the store's database (the embedded H2 file, or the database of
 * {@code spring.datasource.url}).
 *
 * <p>The projection runs as {@value #SLICES} workers, each following the {@link Deposited} events of a quarter of the
 * account shards, each on one node of the cluster and moved like a shard when its node leaves or crashes. Its handler,
 * {@link #record}, writes the rows of a page of events in the transaction that moves the slice's offset past them: both
 * are committed or neither, so each deposit is in the table exactly once, also when a node dies in the middle of a
 * page. The primary key (account, sequence number) refuses a second row for one event all the same.
 *
 * <p>The table is eventually consistent: a deposit is there shortly after it was acknowledged (a worker looks for new
 * events every 200 ms), or after a few seconds when the node running its slice crashed.
 */
public final class AccountHistory {

    /** The projection's name, which its offsets are stored under, and its daemon process's entity type. */
    static final String PROJECTION = "account-history";

    /** How many workers share the account shards. */
    static final int SLICES = 4;

    private static final int QUERY_TIMEOUT_SECONDS = 5;

    private static final String INSERT =
            "INSERT INTO account_history (account_id, sequence_nr, amount, deposited_at)" + " VALUES (?, ?, ?, ?)";

    private static final String SELECT = "SELECT sequence_nr, amount, deposited_at FROM account_history"
            + " WHERE account_id = ? ORDER BY sequence_nr";

    private final JdbcTemplate jdbc;

    /**
     * The history in a database.
     *
     * @param dataSource the store's database
     */
    AccountHistory(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.jdbc.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
    }

    /**
     * Creates the table where it is missing, with the script of the database's kind, in one transaction.
     *
     * @throws IllegalStateException when the database is neither H2 nor PostgreSQL
     */
    void createTable() {
        jdbc.execute((Connection c) -> {
            String product = c.getMetaData().getDatabaseProductName();
            String script = switch (product) {
                case "H2" -> "account-history-h2.sql";
                case "PostgreSQL" -> "account-history-postgresql.sql";
                default ->
                    throw new IllegalStateException("The account history has a table for H2 and PostgreSQL"
                            + " only, not for the store's database " + product);
            };
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                ScriptUtils.executeSqlScript(c, new ClassPathResource(script, AccountHistory.class));
                c.commit();
            } catch (RuntimeException | SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
            return null;
        });
    }

    /**
     * The projection's handler: a row for each deposit of the page, with the connection of the transaction that moves
     * the slice's offset. It does not commit: the projection does, with the offset.
     *
     * @param connection the transaction's connection
     * @param events the page, in offset order
     * @throws SQLException to roll the page back; it is handed again after a wait
     */
    static void record(Connection connection, List<ProjectedEvent> events) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
            insert.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
            int rows = 0;
            for (ProjectedEvent e : events) {
                if (e.event() instanceof Deposited deposited) {
                    insert.setString(1, e.entityId());
                    insert.setLong(2, e.sequenceNr());
                    insert.setLong(3, deposited.amount());
                    insert.setObject(4, OffsetDateTime.ofInstant(e.writtenAt(), ZoneOffset.UTC));
                    insert.addBatch();
                    rows++;
                }
            }
            if (rows > 0) {
                insert.executeBatch();
            }
        }
    }

    /**
     * An account's deposits as the projection has recorded them so far.
     *
     * @param accountId the account
     * @return its deposits in the order they were made; empty for an account never seen (or whose deposits the
     *     projection has not reached yet)
     * @throws org.springframework.dao.DataAccessException when the database fails
     */
    List<HistoryEntry> entries(String accountId) {
        return jdbc.query(
                SELECT,
                (rs, row) -> new HistoryEntry(
                        rs.getLong(2),
                        rs.getLong(1),
                        rs.getObject(3, OffsetDateTime.class).toInstant()),
                accountId);
    }
}
