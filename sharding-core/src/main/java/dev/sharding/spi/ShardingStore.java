package dev.sharding.spi;

import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Where sharding keeps what must outlive a node: entity state, the epoch of every shard allocation, and the ids of
 * remembered entities. Every method returns at once; the future completes when the operation is durable (or failed).
 * Implementations are shared by all threads of a node and by every node of the cluster (one database).
 *
 * <h2>Single writer</h2>
 * Each allocation of a shard gets a new epoch from {@link #nextEpoch}; every state write carries the writer's shard
 * and epoch. A write whose epoch is lower than the shard's current epoch (the last one {@link #nextEpoch} returned)
 * or than the epoch of the row's last write fails with {@link StaleEpochException} and changes nothing. Because the
 * coordinator takes the new epoch before the new owner starts, a node that has not yet noticed it lost a shard can
 * never write again, whether or not the new owner has written yet.
 *
 * <h2>Group commit</h2>
 * Writes from many entities that arrive while a transaction is under way are committed together in the next one, so
 * throughput does not collapse to one round trip per message. A failed transaction fails every write in it.
 *
 * <h2>Event journal</h2>
 * The store may also keep the journals of event-sourced entities ({@link EventJournal}, whose methods it inherits):
 * their appends go through the same group commit and the same fencing as state writes.
 *
 * <h2>Optional capabilities</h2>
 * Some features are optional: a store declares those it has in {@link #capabilities()}, and the runtime asks there
 * before it uses one, and never calls the methods of a feature the store does not declare. Each optional method says
 * which {@link Capability} it belongs to; its default fails with {@link UnsupportedOperationException}, which only a
 * caller that did not ask first can see. A store that implements such a method must also declare its capability, or
 * the runtime does without it (before capabilities were declared, the runtime called the method and took that
 * exception as the answer).
 */
public interface ShardingStore extends EventJournal, ProjectionOffsets, AutoCloseable {

    /**
     * The optional features of a store ({@link ShardingStore#capabilities()}).
     */
    enum Capability {

        /**
         * Keeps the ids of the messages an entity applied with its state:
         * {@link ShardingStore#write(String, String, int, long, byte[], byte[])} with ids. Without it, a message sent
         * with an id to an entity with durable state fails unapplied, since a retry could not be recognised.
         */
        APPLIED_MESSAGES,

        /**
         * Reads the current epochs of a type's shards: {@link ShardingStore#currentEpochs(String)}. Without it, a node
         * whose lease to serve lapsed drops the shards it kept rather than check them.
         */
        CURRENT_EPOCHS,

        /**
         * Arbitrates a cluster's coordinator lease: {@link ShardingStore#acquireCoordinatorLease} and
         * {@link ShardingStore#releaseCoordinatorLease}. Without it, split-brain strategy {@code store-lease} cannot
         * run a coordinator, and no other strategy can notice a second cluster on the same store.
         */
        COORDINATOR_LEASE,

        /**
         * Keeps the journals of event-sourced entities: every method of {@link EventJournal}. Without it, a type with
         * event-sourced entities cannot run on the store.
         */
        EVENT_JOURNAL
    }

    /**
     * The optional features this store has. The runtime reads it before it uses one, and may read it often: return
     * a constant set. The default declares none.
     *
     * @return the capabilities, never changing
     */
    default Set<Capability> capabilities() {
        return Set.of();
    }

    /**
     * Reads one entity's state.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @return the stored state, or empty if none is stored
     */
    CompletableFuture<Optional<StoredState>> read(String typeName, String entityId);

    /**
     * Writes one entity's state.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard
     * @param epoch the epoch of the writer's allocation of the shard
     * @param state the encoded state
     * @return the state as stored (its new version), once durable; failed with {@link StaleEpochException} when the
     *     shard was allocated since or the row was written under a higher epoch
     */
    CompletableFuture<StoredState> write(String typeName, String entityId, int shardId, long epoch, byte[] state);

    /**
     * Writes one entity's state together with the ids of the messages it applied lately, in one transaction, so that
     * a message retried with the same id is recognised whatever happened between (see
     * {@link dev.sharding.ShardRegion#ask(String, Object, Class, java.time.Duration, String)}). Both values replace
     * the stored ones; {@code applied} {@code null} stores none.
     *
     * <p>Optional with ids ({@link Capability#APPLIED_MESSAGES}): the default writes {@code state} alone when
     * {@code applied} is {@code null}, and otherwise fails with {@link UnsupportedOperationException}: a store that
     * cannot keep the ids cannot promise that a retry applies once.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard
     * @param epoch the epoch of the writer's allocation of the shard
     * @param state the encoded state; empty (no bytes) when the entity has none and the row only keeps the ids
     * @param applied the encoded ids of the applied messages and their replies, or {@code null}
     * @return the state as stored, once durable; failed as {@link #write(String, String, int, long, byte[])} fails
     */
    default CompletableFuture<StoredState> write(
            String typeName, String entityId, int shardId, long epoch, byte[] state, byte @Nullable [] applied) {
        if (applied == null) {
            return write(typeName, entityId, shardId, epoch, state);
        }
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getName() + " cannot store the ids of applied messages"));
    }

    /**
     * Deletes one entity's state.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param shardId the entity's shard
     * @param epoch the epoch of the writer's allocation of the shard
     * @return completes once durable; failed with {@link StaleEpochException} when the shard was allocated since or
     *     the row was written under a higher epoch
     */
    CompletableFuture<Void> delete(String typeName, String entityId, int shardId, long epoch);

    /**
     * Starts a new allocation of a shard.
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @return the new epoch, exactly one more than the last one returned for the shard (the first is 1); a node that
     *     gets state carried from epoch {@code e} by a handoff trusts it only under epoch {@code e + 1}
     */
    CompletableFuture<Long> nextEpoch(String typeName, int shardId);

    /**
     * The current epochs of a type's shards: the last ones {@link #nextEpoch} returned. A node whose lease to serve
     * lapsed checks its shards against them before it serves again: a shard allocated elsewhere since has a newer
     * epoch, and its copy here is stale.
     *
     * <p>Optional ({@link Capability#CURRENT_EPOCHS}): the default fails with {@link UnsupportedOperationException}.
     *
     * @param typeName the entity type
     * @return the epoch of every shard of the type that has one
     */
    default CompletableFuture<java.util.Map<Integer, Long>> currentEpochs(String typeName) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getName() + " cannot read shard epochs"));
    }

    /**
     * The store's own clock, in milliseconds since the epoch: one clock that every node reads alike. The nodes time
     * what they keep in the entities' state by it (how long the ids of applied messages are remembered), so that a
     * node whose own clock is off does not shorten or stretch what the others wrote. The default is this JVM's clock,
     * right for a store that lives in one JVM.
     *
     * @return the time now, on the store's clock
     */
    default CompletableFuture<Long> currentTimeMillis() {
        return CompletableFuture.completedFuture(System.currentTimeMillis());
    }

    /**
     * Records which entities of a shard started and stopped (remembered entities).
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @param started ids now alive
     * @param stopped ids no longer to be restarted
     * @return completes once durable
     */
    CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, Collection<String> started, Collection<String> stopped);

    /**
     * Records which entities of a shard started and stopped, fenced by the shard's epoch as state writes are: when the
     * shard has been allocated again since {@code epoch} (a stale owner's late flush), nothing changes and the future
     * fails with {@link StaleEpochException}. The runtime calls this one. The default ignores the epoch and calls
     * {@link #updateRemembered(String, int, Collection, Collection)}: a store that can fence should override it.
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @param epoch the epoch under which the shard's owner recorded the changes
     * @param started ids now alive
     * @param stopped ids no longer to be restarted
     * @return completes once durable
     */
    default CompletableFuture<Void> updateRemembered(
            String typeName, int shardId, long epoch, Collection<String> started, Collection<String> stopped) {
        return updateRemembered(typeName, shardId, started, stopped);
    }

    /**
     * The remembered entities of a shard.
     *
     * @param typeName the entity type
     * @param shardId the shard
     * @return their ids
     */
    CompletableFuture<Set<String>> remembered(String typeName, int shardId);

    /**
     * The shards of a type that have remembered entities.
     *
     * @param typeName the entity type
     * @return their ids
     */
    CompletableFuture<Set<Integer>> shardsWithRemembered(String typeName);

    /**
     * Deletes the sharding data (the remembered entities) of every entity type, after the operations made before it.
     * Only for a stopped cluster. Keeps the entities' state, their event journals and snapshots (the state of
     * event-sourced entities, which projections also read by global offset), and keeps the shard epochs: they fence the state rows
     * (each row carries the epoch of its last write), so {@link #nextEpoch} goes on from where it was and the next
     * owner of a shard can write its existing entities, while writes under epochs handed out before stay refused.
     *
     * @return how many remembered entity ids were deleted, once done
     */
    CompletableFuture<Long> clearShardingData();

    /**
     * Takes or renews the coordinator lease of a cluster: one row per cluster name that says which member's
     * coordinator may allocate shards over this store, until when. Atomically: when no member holds the lease, when
     * the lease has expired (by the store's own clock), or when {@code holderId} holds it already, it is given to
     * {@code holderId} until the store's now plus {@code duration}; otherwise it is left as it is.
     *
     * <p>The split-brain strategy {@code store-lease} keeps the side whose coordinator holds this lease; every other
     * strategy uses it to notice a second cluster of the same name started on the same store by mistake.
     *
     * <p>A store serves one cluster at a time: while the lease of one cluster name is live, a request for any other
     * cluster name is refused, and the answer names the cluster that holds it ({@link CoordinatorLease#holderCluster}),
     * so that a second cluster started on the same store by mistake (another {@code sharding.cluster-name}, the same
     * database and tables) never allocates the shards the first one serves. Requests of different clusters are
     * decided one at a time, so that two clusters asking at once cannot both be granted.
     *
     * <p>Optional ({@link Capability#COORDINATOR_LEASE}). Stores that cannot arbitrate between processes (the
     * in-memory store of one JVM is shared only by the nodes in it) may grant every request and declare the
     * capability; the default refuses to arbitrate by failing with {@link UnsupportedOperationException}.
     *
     * @param clusterName the cluster
     * @param holderId the member asking, unique per incarnation (its JGroups address)
     * @param holderName the member's name, for messages
     * @param duration how long the lease lasts from the store's now, if granted
     * @return the lease as it is after the call: granted to {@code holderId} or held by another member, of this
     *     cluster or of another
     */
    default CompletableFuture<CoordinatorLease> acquireCoordinatorLease(
            String clusterName, String holderId, String holderName, java.time.Duration duration) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getName() + " cannot hold a coordinator lease"));
    }

    /**
     * Gives up the coordinator lease if {@code holderId} holds it (a coordinator that stops or steps down), so that
     * the next coordinator need not wait for it to expire. Does nothing otherwise. Called only on a store that declares
     * {@link Capability#COORDINATOR_LEASE}; the default does nothing.
     *
     * @param clusterName the cluster
     * @param holderId the member giving it up
     * @return completes once done
     */
    default CompletableFuture<Void> releaseCoordinatorLease(String clusterName, String holderId) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * The identity of this store: a random id created the first time any node asks and kept in the store, so that
     * nodes can check that they share one store. Empty for a store that is not shared between processes.
     *
     * @return the id, or empty
     */
    default CompletableFuture<java.util.Optional<String>> storeId() {
        return CompletableFuture.completedFuture(java.util.Optional.empty());
    }

    /**
     * Tells a recorder the size of every transaction the store runs from now on
     * ({@link ShardingMetrics#storeBatch}), for a store that groups writes; the node calls it once when it is built
     * with a recorder. The default records nothing.
     *
     * @param metrics the recorder
     */
    default void recordBatchesIn(ShardingMetrics metrics) {}

    /**
     * Releases what the store holds (threads, connections it owns).
     */
    @Override
    void close();

    /**
     * One entity's stored state.
     *
     * @param state the encoded state; empty when the row only keeps the ids of applied messages
     * @param version how many times it was written (1 after the first write)
     * @param epoch the epoch of its last write
     * @param applied the encoded ids of the messages it applied lately, with their replies, or {@code null}
     */
    record StoredState(byte[] state, long version, long epoch, byte @Nullable [] applied) {

        /**
         * A stored state without applied message ids.
         *
         * @param state the encoded state
         * @param version how many times it was written
         * @param epoch the epoch of its last write
         */
        public StoredState(byte[] state, long version, long epoch) {
            this(state, version, epoch, null);
        }
    }

    /**
     * A cluster's coordinator lease, as it is after {@link #acquireCoordinatorLease}.
     *
     * @param granted whether the member that asked holds it now
     * @param holderId the member holding it
     * @param holderName that member's name
     * @param remaining how long it still lasts, by the store's clock
     * @param holderCluster the name of the cluster whose member holds it when that is not the cluster that asked
     *     (another cluster uses this store), empty otherwise
     */
    record CoordinatorLease(
            boolean granted, String holderId, String holderName, java.time.Duration remaining, String holderCluster) {

        /**
         * Checks the names.
         *
         * @param granted whether the member that asked holds it now
         * @param holderId the member holding it
         * @param holderName that member's name
         * @param remaining how long it still lasts, by the store's clock
         * @param holderCluster the other cluster holding it, or empty
         */
        public CoordinatorLease {
            java.util.Objects.requireNonNull(holderId, "holderId");
            java.util.Objects.requireNonNull(holderName, "holderName");
            java.util.Objects.requireNonNull(remaining, "remaining");
            java.util.Objects.requireNonNull(holderCluster, "holderCluster");
        }

        /**
         * The lease of the cluster that asked.
         *
         * @param granted whether the member that asked holds it now
         * @param holderId the member holding it
         * @param holderName that member's name
         * @param remaining how long it still lasts, by the store's clock
         */
        public CoordinatorLease(boolean granted, String holderId, String holderName, java.time.Duration remaining) {
            this(granted, holderId, holderName, remaining, "");
        }

        /**
         * A refusal because another cluster holds the store.
         *
         * @param holderCluster that cluster's name
         * @param holderId its member holding the lease
         * @param holderName that member's name
         * @param remaining how long its lease still lasts, by the store's clock
         * @return the lease, not granted
         */
        public static CoordinatorLease heldByAnotherCluster(
                String holderCluster, String holderId, String holderName, java.time.Duration remaining) {
            return new CoordinatorLease(false, holderId, holderName, remaining, holderCluster);
        }

        /** {@return whether a cluster other than the one that asked holds the lease} */
        public boolean anotherCluster() {
            return !holderCluster.isEmpty();
        }
    }
}
