package dev.sharding.store;

import dev.sharding.store.PortableSql.ShardKey;
import dev.sharding.store.ShardEpochs.LockedEpochs;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.SortedSet;

/**
 * How a {@link WriteBatch} begins its transaction, locks the epochs of its shards and writes its states. Each dialect
 * says which it uses ({@link JdbcDialect#writePath()}): the general path everywhere ({@link LockThenReplay}), or, where
 * the database can lock the epochs and update many rows in one round trip, that round trip first and the general path
 * for the keys it leaves ({@link LockAndUpdateFirst}).
 */
sealed interface WritePath permits LockThenReplay, LockAndUpdateFirst {

    /**
     * Writes the states of a batch in the connection's current transaction, after giving it its time limits and
     * locking the epoch rows of the batch's shards: whoever holds them holds the state and remembered rows of their
     * shards too, so no statement after that waits for another node's transaction. Records the outcome of every
     * write and delete, {@link Outcome#DEFERRED} for those of a shard another transaction holds.
     *
     * @param batch the batch, whose operations and outcomes the path reads and records
     * @param connection a connection with auto-commit off
     * @param dialect the database's dialect
     * @param limits sets the transaction's time limits, where a path does not set them itself
     * @param shards every shard the batch touches, sorted
     * @param writesStates whether the batch writes or deletes any state
     * @return the epochs of the batch's shards, locked, and the shards another transaction holds
     * @throws SQLException when a statement fails, or the batch is to be done again in a new transaction; the
     *     transaction must be rolled back
     */
    LockedEpochs write(
            WriteBatch batch,
            Connection connection,
            JdbcDialect dialect,
            TimeLimits.Start limits,
            SortedSet<ShardKey> shards,
            boolean writesStates)
            throws SQLException;
}
