package dev.sharding;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Handles the events of one slice of a projection within the transaction that saves the slice's offset, on the JDBC
 * store's database ({@link Projection#ofJdbc}): what the handler writes with the given connection and the new offset
 * are committed together or not at all, so each event takes effect exactly once, crashes and moves included.
 */
@FunctionalInterface
public interface JdbcProjectionHandler {

    /**
     * Handles a batch of events in the transaction. Do not commit, roll back or close the connection.
     *
     * @param connection the transaction's connection, to the store's database
     * @param events the events, in offset order; never empty
     * @throws SQLException to roll the transaction back: the events are handed again after a wait
     */
    void handle(Connection connection, List<ProjectedEvent> events) throws SQLException;
}
