package dev.sharding.store;

import dev.sharding.store.PortableSql.EntityKey;
import dev.sharding.store.PortableSql.ShardKey;
import dev.sharding.store.ShardEpochs.LockedEpochs;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * The general write path: the transaction's time limits, then the epochs of the batch's shards, locked without
 * waiting for rows another transaction holds ({@link ShardEpochs#lockAll}), then the state rows of every key
 * replayed and written ({@link StateReplay}). The operations of a shard another transaction holds are left for a later
 * batch.
 */
final class LockThenReplay implements WritePath {

    /** The one instance: the path holds no state. */
    static final LockThenReplay INSTANCE = new LockThenReplay();

    private LockThenReplay() {}

    @Override
    public LockedEpochs write(
            WriteBatch batch,
            Connection connection,
            JdbcDialect dialect,
            TimeLimits.Start limits,
            SortedSet<ShardKey> shards,
            boolean writesStates)
            throws SQLException {
        limits.begin(connection);
        LockedEpochs locked = shards.isEmpty()
                ? new LockedEpochs(Map.of(), Set.of())
                : dialect.shardEpochs().lockAll(connection, shards);
        SortedMap<EntityKey, List<Integer>> byKey = batch.statesByKey(locked.busy());
        if (!byKey.isEmpty()) {
            batch.replay().write(connection, dialect, byKey, locked.epochs());
        }
        return locked;
    }
}
