package dev.sharding.store;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What an exactly-once projection writes in its offset's transaction
 * ({@link JdbcShardingStore#inProjectionTransaction}).
 */
@FunctionalInterface
public interface ProjectionWork {

    /**
     * Writes, in the transaction.
     *
     * @param connection the transaction's connection; not to be committed, rolled back or closed
     * @throws SQLException to roll it back
     */
    void run(Connection connection) throws SQLException;
}
