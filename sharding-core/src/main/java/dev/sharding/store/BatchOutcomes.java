package dev.sharding.store;

import dev.sharding.ShardingException;
import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.store.PortableSql.EntityKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What became of each operation of one {@link WriteBatch} in its last transaction, and the completing of their
 * futures once the fate of that transaction is known. The batch records an {@link Outcome} per operation as it runs;
 * an operation without one was not decided (its transaction failed first).
 */
final class BatchOutcomes {

    private final List<StoreOperation.Batched> operations;

    private final @Nullable Outcome[] outcomes;

    /**
     * Creates the outcomes of a batch, none decided yet.
     *
     * @param operations the batch's operations, in queue order
     */
    BatchOutcomes(List<StoreOperation.Batched> operations) {
        this.operations = operations;
        this.outcomes = new Outcome[operations.size()];
    }

    /** Forgets every outcome, before the batch runs in a new transaction. */
    void clear() {
        Arrays.fill(outcomes, null);
    }

    /**
     * Records what became of an operation.
     *
     * @param index the operation's index in the batch
     * @param outcome its outcome
     */
    void set(int index, Outcome outcome) {
        outcomes[index] = outcome;
    }

    /**
     * What became of an operation in the last transaction.
     *
     * @param index the operation's index in the batch
     * @return its outcome, or null when not decided
     */
    @Nullable
    Outcome outcome(int index) {
        return outcomes[index];
    }

    /**
     * Whether any of the given operations was accepted.
     *
     * @param indexes indexes of decided operations
     * @return false when every one of them was refused
     */
    boolean anyAccepted(List<Integer> indexes) {
        for (int i : indexes) {
            if (!(outcomes[i] instanceof Outcome.Refused)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The operations left for a later batch; see {@link WriteBatch#deferred()}.
     *
     * @return the operations, in queue order
     */
    List<StoreOperation.Batched> deferred() {
        List<StoreOperation.Batched> deferred = new ArrayList<>();
        for (int i = 0; i < operations.size(); i++) {
            if (outcomes[i] instanceof Outcome.Deferred) {
                deferred.add(operations.get(i));
            }
        }
        return deferred;
    }

    /** Completes every future with its outcome; see {@link WriteBatch#complete()}. */
    void complete() {
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation op = operations.get(i);
            @Nullable Outcome outcome = outcomes[i];
            if (outcome == null) {
                op.future()
                        .completeExceptionally(
                                new IllegalStateException("The batch committed without deciding the " + op.describe()));
            } else {
                outcome.complete(op);
            }
        }
    }

    /**
     * The row that tells whether the last transaction was committed; see {@link WriteBatch#witness()}.
     *
     * @return the witness, or null when no key qualifies
     */
    WriteBatch.@Nullable Witness witness() {
        Map<EntityKey, int[]> firstAndLast = new LinkedHashMap<>();
        Set<EntityKey> unfit = new HashSet<>();
        Set<EntityKey> writtenOrDeleted = new HashSet<>();
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation op = operations.get(i);
            if (op instanceof StoreOperation.Write w) {
                EntityKey key = new EntityKey(w.typeName(), w.entityId());
                writtenOrDeleted.add(key);
                int[] seen = firstAndLast.computeIfAbsent(key, k -> new int[] {-1, -1});
                if (!(outcomes[i] instanceof Outcome.Stored s)
                        || s.state().epoch() != w.epoch()
                        || (seen[1] >= 0 && ((StoreOperation.Write) operations.get(seen[1])).epoch() != w.epoch())) {
                    unfit.add(key);
                }
                seen[0] = seen[0] < 0 ? i : seen[0];
                seen[1] = i;
            } else if (op instanceof StoreOperation.Delete d) {
                unfit.add(new EntityKey(d.typeName(), d.entityId()));
                writtenOrDeleted.add(new EntityKey(d.typeName(), d.entityId()));
            } else if (op instanceof StoreOperation.Append a) {
                // not a write's row: appendWitness decides on it
                unfit.add(new EntityKey(a.typeName(), a.entityId()));
            }
        }
        for (Map.Entry<EntityKey, int[]> e : firstAndLast.entrySet()) {
            // a key not unfit has a stored outcome for every write
            if (!unfit.contains(e.getKey())
                    && outcomes[e.getValue()[0]] instanceof Outcome.Stored first
                    && outcomes[e.getValue()[1]] instanceof Outcome.Stored last) {
                return new WriteBatch.Witness(
                        e.getKey().typeName(),
                        e.getKey().entityId(),
                        first.state().version() - 1,
                        last.state().version(),
                        last.state().epoch(),
                        last.state().state());
            }
        }
        return appendWitness(writtenOrDeleted);
    }

    /**
     * The head row of an event-sourced entity whose operations in the batch are all appends that were accepted, under
     * one epoch, with at least one event: its version (the last sequence number) then moved from what the first append
     * expected to what the last one left, which tells whether the transaction was committed as a write's row does.
     */
    private WriteBatch.@Nullable Witness appendWitness(Set<EntityKey> writtenOrDeleted) {
        Set<EntityKey> unfit = new HashSet<>(writtenOrDeleted);
        Map<EntityKey, int[]> firstAndLast = new LinkedHashMap<>();
        for (int i = 0; i < operations.size(); i++) {
            if (operations.get(i) instanceof StoreOperation.Append a) {
                EntityKey key = new EntityKey(a.typeName(), a.entityId());
                int index = i;
                int[] seen = firstAndLast.computeIfAbsent(key, k -> new int[] {index, index});
                if (!(outcomes[i] instanceof Outcome.Appended)
                        || ((StoreOperation.Append) operations.get(seen[0])).epoch() != a.epoch()) {
                    unfit.add(key);
                }
                seen[1] = i;
            }
        }
        for (Map.Entry<EntityKey, int[]> e : firstAndLast.entrySet()) {
            StoreOperation.Append first = (StoreOperation.Append) operations.get(e.getValue()[0]);
            StoreOperation.Append last = (StoreOperation.Append) operations.get(e.getValue()[1]);
            if (!unfit.contains(e.getKey()) && last.lastSequenceNr() > first.expectedLastSequenceNr()) {
                return new WriteBatch.Witness(
                        first.typeName(),
                        first.entityId(),
                        first.expectedLastSequenceNr(),
                        last.lastSequenceNr(),
                        last.epoch(),
                        new byte[0]);
            }
        }
        return null;
    }

    /**
     * Fails every future; see {@link WriteBatch#fail}.
     *
     * @param reason what went wrong, for the message
     * @param cause the failure
     */
    void fail(String reason, @Nullable Throwable cause) {
        if (JdbcTransactions.outcomeUnknown(cause)) {
            failOutcomeUnknown(reason, cause);
            return;
        }
        for (StoreOperation op : operations) {
            op.future()
                    .completeExceptionally(new ShardingException(
                            "The store could not commit the "
                                    + op.describe() + ": " + reason + "; nothing of its batch of " + operations.size()
                                    + " operations was applied",
                            cause));
        }
    }

    /**
     * Fails every future of a transaction whose commit may or may not have reached the database: those it held fail
     * with {@link StoreOutcomeUnknownException}, those it left for later ({@link #deferred()}) as not applied.
     */
    private void failOutcomeUnknown(String reason, @Nullable Throwable cause) {
        for (int i = 0; i < operations.size(); i++) {
            StoreOperation op = operations.get(i);
            if (outcomes[i] instanceof Outcome.Deferred) {
                op.future()
                        .completeExceptionally(new ShardingException(
                                "The store could not apply the " + op.describe() + ": " + reason
                                        + "; it was not part of the transaction, and was not applied",
                                cause));
            } else {
                op.future()
                        .completeExceptionally(new StoreOutcomeUnknownException(
                                "The store lost its connection while it committed the " + op.describe()
                                        + ", so it may have been stored or not (" + reason
                                        + "); read it again, or retry with the same idempotency key",
                                cause == null ? new IllegalStateException(reason) : cause));
            }
        }
    }
}
