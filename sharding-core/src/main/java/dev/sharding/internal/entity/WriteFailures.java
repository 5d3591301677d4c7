package dev.sharding.internal.entity;

import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.spi.SequenceConflictException;
import dev.sharding.spi.ShardingStore;
import dev.sharding.spi.StaleEpochException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a message whose state could not be stored is answered, and what the entity does about it: the message had no
 * effect; a stale epoch fences the shard; a journal that moved on, or a commit whose outcome is unknown, makes the
 * entity read its state again before its next message; a store that failed is retryable.
 */
final class WriteFailures {

    private static final Logger log = LoggerFactory.getLogger(DurableEntityState.class);

    private WriteFailures() {}

    /**
     * The state write failed (the store failed it: {@code byStore}), or could not be made: the message fails with no
     * effect.
     */
    static void answer(
            EntityCell cell,
            EntityShard shard,
            EntityServices services,
            ReplySink sink,
            Throwable writeFailure,
            boolean byStore,
            long writeNanos) {
        services.metrics().stateWritten(writeNanos, false);
        boolean storeFailed = byStore && isStoreFailure(writeFailure);
        if (storeFailed && log.isDebugEnabled()) {
            // an outage fails every write: the store says so once per streak, the caller each time
            log.debug(
                    "State of [{}/{}] not stored; it is back to the stored value: {}",
                    cell.typeName(),
                    cell.entityId(),
                    writeFailure.toString());
        } else if (!storeFailed) {
            log.warn(
                    "State of [{}/{}] not stored; it is back to the stored value: {}",
                    cell.typeName(),
                    cell.entityId(),
                    writeFailure.toString());
        }
        if (writeFailure instanceof StaleEpochException) {
            // the shard moved while the message was handled: a retry reaches the new owner, so it is not the entity's
            // failure (EntityException reads "a retry is refused again")
            shard.region().shardFenced(shard.shardId(), shard.epoch());
            sink.fail(
                    FailureKind.UNAVAILABLE,
                    writeFailure.getClass().getName(),
                    "The shard of [" + cell.typeName() + "/" + cell.entityId() + "] moved to another node while the"
                            + " message was handled, so its state was not stored and the message had no effect (retry"
                            + " it): " + writeFailure.getMessage());
            return;
        }
        if (writeFailure instanceof SequenceConflictException) {
            // another owner appended since this one read the journal: what it holds in memory is stale
            cell.dropForReload();
            sink.fail(
                    FailureKind.UNAVAILABLE,
                    writeFailure.getClass().getName(),
                    "The journal of [" + cell.typeName() + "/" + cell.entityId() + "] holds events this node did not"
                            + " know of, so the message had no effect; the entity reads them before its next message"
                            + " (retry it): " + writeFailure.getMessage());
            return;
        }
        if (writeFailure instanceof StoreOutcomeUnknownException) {
            // the write may be stored after all: the value in memory, back to the one before it, may be stale
            cell.dropForReload();
            sink.fail(
                    FailureKind.STORE_OUTCOME_UNKNOWN,
                    writeFailure.getClass().getName(),
                    "The state of [" + cell.typeName() + "/" + cell.entityId()
                            + "] may or may not have been stored: the store lost its connection while it committed it."
                            + " The entity reads its state again before its next message; retry with the same"
                            + " idempotency key, which answers the recorded reply if it was stored: "
                            + writeFailure.getMessage());
            return;
        }
        if (storeFailed) {
            sink.fail(
                    FailureKind.STORE_FAILED,
                    writeFailure.getClass().getName(),
                    "The state of [" + cell.typeName() + "/" + cell.entityId()
                            + "] could not be stored because the store failed, so the message had no effect"
                            + " (retry it): " + writeFailure);
            return;
        }
        sink.fail(
                FailureKind.ENTITY_FAILED,
                writeFailure.getClass().getName(),
                "the entity's state could not be stored, so the message had no effect: " + writeFailure.getMessage());
    }

    /**
     * Whether a failure of the store's future is the store failing (an outage: retryable) rather than the store
     * refusing this write for what it is: a stale epoch (the shard moved), or a value or key it cannot hold. Failures
     * of the codec never reach the store, nor does a write the store does not declare it can keep (applied message
     * ids: {@link ShardingStore.Capability#APPLIED_MESSAGES}).
     */
    static boolean isStoreFailure(Throwable failure) {
        return !(failure instanceof StaleEpochException
                || failure instanceof SequenceConflictException
                || failure instanceof IllegalArgumentException);
    }
}
