package dev.sharding.internal.entity;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.FailureKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a message goes through before its entity's handler, on the thread draining the mailbox: a shard dropped without
 * a handoff or an entity stopped fails it; a node that does not serve (its lease ran out) holds it; and when the entity
 * has no instance, it starts: the stored state of a type with state is read first (the message waits in the mailbox
 * meanwhile), then the instance is created. A start that fails waits and is tried again ({@link StartBackoff}), with
 * the message held in the mailbox, unless the shard stops meanwhile; a stored state that the class cannot read fails
 * the message at once, as trying again cannot help.
 */
final class EntityStart {

    private static final Logger log = LoggerFactory.getLogger(EntityStart.class);

    /** The entity has its instance: the message is handled next. */
    static final int GO_ON = 0;

    /** The message was answered (failed) without an instance: the mailbox takes the next. */
    static final int DONE = 1;

    /** The message waits in the mailbox: for the node to serve, for the state's read, or for the next attempt. */
    static final int WAITING = 2;

    private EntityStart() {}

    /**
     * Makes the entity ready for a delivery, or says why it is not.
     *
     * @param now the cell's life as the delivery found it
     * @return {@link #GO_ON} (the cell has its instance), {@link #DONE} or {@link #WAITING}
     */
    static int ready(EntityCell cell, Delivery d, CellLife now) {
        ReplySink sink = d.sink();
        EntityRegion region = cell.region();
        if (cell.shardDropped()) {
            sink.fail(
                    FailureKind.PARTITIONED,
                    ClusterPartitionedException.class.getName(),
                    "Shard " + cell.shardId() + " of " + cell.typeName() + " stopped on " + cell.nodeName()
                            + " without a handoff (" + region.notServingReason() + "); the message had no effect");
            return DONE;
        }
        if (!region.serving()) {
            // the lease ran out: the message waits until the node serves again, or the shard is dropped
            cell.hold(d);
            region.park(cell);
            return WAITING;
        }
        if (cell.isStopped()) {
            sink.fail(
                    FailureKind.UNAVAILABLE,
                    "ShardingException",
                    "Entity [" + cell.typeName() + "/" + cell.entityId() + "] stopped before handling the message");
            return DONE;
        }
        return cell.hasInstance() ? GO_ON : start(cell, d, now);
    }

    /** Starts the entity for a delivery: {@link #GO_ON}, {@link #DONE} or {@link #WAITING}. */
    private static int start(EntityCell cell, Delivery d, CellLife now) {
        StartBackoff waiting = now.backoff();
        if (waiting != null && waiting.stopRequested()) {
            waiting.failStopping(d.sink());
            return DONE;
        }
        EntityServices services = cell.services();
        DurableEntityState state = services.type().stateType() == null ? null : cell.durable();
        if (state != null && state.mustLoad()) {
            Throwable failure = state.takeLoadFailure();
            if (failure != null) {
                return failed(cell, d, failure, WriteFailures.isStoreFailure(failure));
            }
            cell.hold(d);
            if (!(now instanceof CellLife.Loading)) {
                cell.moveTo(new CellLife.Loading(waiting));
            }
            state.load();
            return WAITING;
        }
        try {
            cell.started(services.type().factory().create(cell));
        } catch (Throwable t) {
            MessageHandling.rethrowFatal(t);
            cell.creationFailed();
            if (!UnreadableStateException.isCause(t)) {
                return failed(cell, d, t, false);
            }
            if (now != CellLife.NEW) {
                cell.moveTo(waiting == null ? CellLife.NEW : new CellLife.BackingOff(waiting));
            }
            // a stored state its class cannot read: trying again cannot help until the class reads it
            log.warn("Creating entity [{}/{}] failed", cell.typeName(), cell.entityId(), t);
            d.sink().fail(FailureKind.ENTITY_FAILED, t.getClass().getName(), "creation failed: " + t.getMessage());
            return DONE;
        }
        if (waiting != null) {
            waiting.started();
        }
        return GO_ON;
    }

    /**
     * The entity could not start: the delivery waits in the cell and the start is tried again after a wait
     * ({@link StartBackoff}), unless the shard stops.
     */
    private static int failed(EntityCell cell, Delivery d, Throwable failure, boolean byStore) {
        StartBackoff before = cell.life().backoff();
        boolean first = before == null;
        EntityServices services = cell.services();
        StartBackoff waiting = before != null ? before : new StartBackoff(cell, services.bufferSize());
        // published before the mailbox is looked at, as senders read it
        cell.moveTo(new CellLife.BackingOff(waiting));
        if (first && cell.stopQueued()) {
            waiting.requestStop(); // the shard stops: no wait, the messages before the stop fail
        }
        if (!waiting.failed(failure, byStore, services.scheduler(), services.entityRestartBackoff())) {
            waiting.failStopping(d.sink());
            return DONE;
        }
        cell.hold(d);
        return WAITING;
    }
}
