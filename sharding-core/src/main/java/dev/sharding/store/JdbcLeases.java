package dev.sharding.store;

import dev.sharding.spi.ShardingStore.CoordinatorLease;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator lease and the store id of a {@link JdbcShardingStore}. Lease requests and releases run on the
 * store's lease thread, each on a connection of its own, so that they never wait behind a write batch or a slow read:
 * a coordinator renews its lease about twice a second and needs the answer within the lease's duration. The lease
 * row's expiry is computed and compared by the database's clock only (see the dialects for the SQL). The store id is
 * created the first time any node asks, and kept once read.
 */
final class JdbcLeases {

    private final ConnectionTasks tasks;

    private final Duration queryTimeout;

    private volatile @Nullable String storeId;

    /**
     * Creates the lease calls of a store.
     *
     * @param tasks runs them on the store's threads
     * @param queryTimeout the longest a statement may run
     */
    JdbcLeases(ConnectionTasks tasks, Duration queryTimeout) {
        this.tasks = tasks;
        this.queryTimeout = queryTimeout;
    }

    /**
     * Takes or renews a cluster's coordinator lease; see {@link JdbcShardingStore#acquireCoordinatorLease}.
     *
     * @param clusterName the cluster
     * @param holderId the member asking
     * @param holderName its name
     * @param duration how long the lease lasts
     * @return the lease as it is after the call
     */
    CompletableFuture<CoordinatorLease> acquire(
            String clusterName, String holderId, String holderName, Duration duration) {
        Objects.requireNonNull(duration, "duration");
        String what = "coordinator lease request of cluster [" + clusterName + "] by [" + holderName + "]";
        CompletableFuture<CoordinatorLease> refused = new CompletableFuture<>();
        if (invalidLease(clusterName, holderId, holderName, refused)) {
            return refused;
        }
        if (duration.toNanos() / 1000 <= 0) {
            refused.completeExceptionally(new IllegalArgumentException(
                    "A coordinator lease must last at least 1" + " microsecond, not " + duration));
            return refused;
        }
        return tasks.onLeaseThread(
                what, leaseLimit(duration), (c, d) -> d.acquireLease(c, clusterName, holderId, holderName, duration));
    }

    /**
     * Gives up a cluster's coordinator lease if the member holds it.
     *
     * @param clusterName the cluster
     * @param holderId the member giving it up
     * @return completes once done
     */
    CompletableFuture<Void> release(String clusterName, String holderId) {
        String what = "release of the coordinator lease of cluster [" + clusterName + "] by [" + holderId + "]";
        CompletableFuture<Void> refused = new CompletableFuture<>();
        if (invalidLease(clusterName, holderId, "", refused)) {
            return refused;
        }
        @SuppressWarnings("NullAway") // no result: Void
        ReadTask.Work<Void> release = (c, d) -> {
            d.releaseLease(c, clusterName, holderId);
            return null;
        };
        return tasks.onLeaseThread(what, queryTimeout, release);
    }

    /**
     * The store's id; see {@link JdbcShardingStore#storeId()}.
     *
     * @return the id
     */
    CompletableFuture<Optional<String>> storeId() {
        @Nullable String known = storeId;
        if (known != null) {
            return CompletableFuture.completedFuture(Optional.of(known));
        }
        return tasks.onReader("read of the store id", ConnectionTasks.Mode.RETRIED_TRANSACTION, (c, d) -> {
            @Nullable String id = d.storeId(c);
            if (id == null) {
                d.createStoreId(c, UUID.randomUUID().toString());
                id = d.storeId(c);
            }
            if (id == null) {
                // an isolation level that hides the row another node committed meanwhile: try a fresh transaction
                throw new SQLTransactionRollbackException("The store id was neither created nor found", "40001");
            }
            storeId = id;
            return Optional.of(id);
        });
    }

    /**
     * The database's time limit for a lease request: half the lease, so that the request fails within the lease's
     * duration, and never more than the query timeout.
     */
    private Duration leaseLimit(Duration duration) {
        Duration half = duration.dividedBy(2);
        return half.compareTo(queryTimeout) < 0 ? half : queryTimeout;
    }

    private static boolean invalidLease(
            String clusterName, String holderId, String holderName, CompletableFuture<?> future) {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(holderId, "holderId");
        Objects.requireNonNull(holderName, "holderName");
        for (String name : List.of(clusterName, holderId, holderName)) {
            if (name.length() > JdbcShardingStore.MAX_LEASE_NAME_LENGTH || name.indexOf('\u0000') >= 0) {
                future.completeExceptionally(new IllegalArgumentException("The JDBC sharding store cannot hold a"
                        + " coordinator lease for cluster [" + clusterName + "] by [" + holderId + "/" + holderName
                        + "]: names must be at most " + JdbcShardingStore.MAX_LEASE_NAME_LENGTH
                        + " characters, without the character U+0000"));
                return true;
            }
        }
        return false;
    }
}
