package dev.sharding.internal.entity;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityState;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.FailureKind;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One live entity: its life ({@link CellLife}) and its instance, fed by its {@link Mailbox}. The mailbox suspends while
 * the entity's stored state is read before it starts, while a handler's {@link CompletionStage} is unfinished, and
 * while a changed {@link EntityState} is written: the reply goes out, and the next message is taken, only once the
 * write is durable. It holds at most {@code mailbox-size} messages: beyond, a message is refused as
 * {@link EntityRegion#mailboxFull} says, so a slow store or an unfinished stage cannot make it grow without bound.
 *
 * <p>The instance is created on the first message (on an entity thread) and destroyed by a stop signal, after the
 * messages before it. Its durable state, read, written through and carried, is {@link DurableEntityState}; a message is
 * handled by {@link MessageHandling}.
 */
public final class EntityCell extends Mailbox implements Passivation.Candidate, ParkedEntities.Parked {

    private static final Logger log = LoggerFactory.getLogger(EntityCell.class);

    private final EntityShard shard;

    /** The parts the type's entities share, from the shard. */
    private final EntityServices services;

    private final String entityId;

    /**
     * Where the entity is in its life, with what that state holds (its instance, a failing start's wait); moved only
     * by the thread draining the mailbox ({@link #moveTo}), read by others.
     */
    private volatile CellLife life = CellLife.NEW;

    /** The entity's durable state across its incarnations here. */
    private final DurableEntityState durable;

    /** When the entity last took a message, on the node's coarse clock (a hint for the sweep; racy reads are fine). */
    private long lastActiveMillis;

    /** Messages taken since the entity started here (a hint for the least-frequently-used strategy; racy reads). */
    private long messages;

    private final EntityContextImpl context = new EntityContextImpl(this);

    public EntityCell(EntityShard shard, String entityId) {
        super(shard.services().executor());
        this.shard = shard;
        this.services = shard.services();
        this.entityId = entityId;
        this.durable = new DurableEntityState(this, shard);
    }

    /**
     * Offers a delivery.
     *
     * @return false when the cell has left its shard (passivated and idle): the delivery was not taken and must go
     *     to a new cell
     */
    public boolean enqueue(Delivery delivery) {
        if (!count(delivery, services.mailboxSize())) {
            shard.region().mailboxFull(this, delivery.sink()); // signals always fit: they stop and passivate
            return true;
        }
        put(delivery);
        CellLife now = life;
        if (now == CellLife.RETIRED && takeBack(delivery)) {
            // the cell retired after its last message; the retiring thread checks the mailbox after marking it dead,
            // so either it saw this delivery (and revived) or this thread sees dead and takes it back
            return false;
        }
        StartBackoff waiting = now.backoff();
        if (waiting != null && !waiting.offered(delivery) && takeBack(delivery)) {
            waiting.reject(delivery); // the entity cannot start and enough messages wait for it
            return true;
        }
        schedule();
        return true;
    }

    @Override
    public boolean isActive() {
        return life instanceof CellLife.Active;
    }

    @Override
    public long lastActiveMillis() {
        return lastActiveMillis;
    }

    @Override
    public long messages() {
        return messages;
    }

    @Override
    public void passivate(long idleSinceMillis, boolean overLimit) {
        enqueue(new Delivery(new Signal.Passivate(idleSinceMillis, overLimit), ReplySink.TELL));
    }

    /**
     * Whether the entity takes no more messages: it stopped, or its shard's handoff passed its deadline while a
     * handler still ran ({@link EntityShard#forceStopped}; the instance is destroyed when the stop signal is reached).
     */
    public boolean isStopped() {
        return life == CellLife.STOPPED || shard.forceStopped();
    }

    /** The one place the entity's state moves, checked against its phases' legal moves ({@link CellLife#move}). */
    private void moveTo(CellLife to) {
        life = CellLife.move(life, to, this);
    }

    @Override
    boolean retireWhenIdle() {
        return life == CellLife.PASSIVATED && !shard.forceStopped() && retire();
    }

    /** Leaves the shard's map once the mailbox is empty; false when a message raced in (the cell goes on). */
    private boolean retire() {
        moveTo(CellLife.RETIRED);
        if (!queueEmpty()) {
            moveTo(CellLife.PASSIVATED);
            return false;
        }
        shard.remove(this);
        return true;
    }

    @Override
    public boolean shardDropped() {
        return shard.dropped();
    }

    /** Runs the mailbox again after it waited: for a completion, or for the node to serve again. */
    @Override
    public void resume() {
        resumeRun();
    }

    /**
     * Runs the mailbox again after a completion that leaves nothing taken (a state write, a handler's stage), on the
     * completing thread: when no message waits, the mailbox is released here, as a run finding it empty would do,
     * instead of by a task on the entity executor that would find nothing to do (a thread hand-off per durable
     * write).
     */
    void resumeAfterCompletion() {
        resumeAfterCompletion(life instanceof CellLife.Active);
    }

    /** Handles one delivery; false when the mailbox must wait for a completion. */
    @Override
    boolean process(Delivery d) {
        if (d.message() instanceof Signal.Stop stop) {
            StartBackoff waiting = life.backoff();
            if (waiting != null) {
                waiting.stopped();
            }
            stopInstance();
            stop.done().run();
            return true;
        }
        if (d.message() instanceof Signal.Passivate signal) {
            if (life instanceof CellLife.Active active
                    && (signal.force() || lastActiveMillis <= signal.idleSinceMillis())) {
                passivateInstance(active.instance());
            }
            return true;
        }
        ReplySink sink = d.sink();
        EntityRegion region = shard.region();
        if (shard.dropped()) {
            sink.fail(
                    FailureKind.PARTITIONED,
                    ClusterPartitionedException.class.getName(),
                    "Shard " + shardId()
                            + " of " + typeName() + " stopped on " + nodeName() + " without a handoff ("
                            + region.notServingReason() + "); the message had no effect");
            return true;
        }
        if (!region.serving()) {
            // the lease ran out: the message waits until the node serves again, or the shard is dropped
            hold(d);
            region.park(this);
            return false;
        }
        if (isStopped()) {
            sink.fail(
                    FailureKind.UNAVAILABLE,
                    "ShardingException",
                    "Entity [" + typeName() + "/" + entityId + "] stopped before handling the message");
            return true;
        }
        CellLife now = life;
        Object entity;
        if (now instanceof CellLife.Active active) {
            entity = active.instance();
        } else {
            StartBackoff waiting = now.backoff();
            if (waiting != null && waiting.stopRequested()) {
                waiting.failStopping(sink);
                return true;
            }
            if (durable.mustLoad()) {
                Throwable failure = durable.takeLoadFailure();
                if (failure != null) {
                    return startFailed(d, failure, WriteFailures.isStoreFailure(failure));
                }
                hold(d);
                if (!(now instanceof CellLife.Loading)) {
                    moveTo(new CellLife.Loading(waiting));
                }
                durable.load();
                return false;
            }
            try {
                entity = services.type().factory().create(context);
                moveTo(new CellLife.Active(entity, false));
                region.entityStarted(this);
            } catch (Throwable t) {
                MessageHandling.rethrowFatal(t);
                durable.creationFailed();
                if (!UnreadableStateException.isCause(t)) {
                    return startFailed(d, t, false);
                }
                if (now != CellLife.NEW) {
                    moveTo(waiting == null ? CellLife.NEW : new CellLife.BackingOff(waiting));
                }
                // a stored state its class cannot read: trying again cannot help until the class reads it
                log.warn("Creating entity [{}/{}] failed", typeName(), entityId, t);
                sink.fail(FailureKind.ENTITY_FAILED, t.getClass().getName(), "creation failed: " + t.getMessage());
                return true;
            }
            if (waiting != null) {
                waiting.started();
            }
        }
        lastActiveMillis = region.clockMillis();
        Object message = d.message();
        if (message == Signal.Start.INSTANCE) {
            return true; // started without a message (remembered entity)
        }
        messages++;
        return MessageHandling.handle(this, entity, message, sink);
    }

    /**
     * The entity could not start: the delivery waits in the cell and the start is tried again after a wait
     * ({@link StartBackoff}). Returns false: the mailbox waits.
     */
    private boolean startFailed(Delivery d, Throwable failure, boolean byStore) {
        StartBackoff before = life.backoff();
        boolean first = before == null;
        StartBackoff waiting = before != null ? before : new StartBackoff(this, services.bufferSize());
        moveTo(new CellLife.BackingOff(waiting)); // published before the mailbox is looked at, as senders read it
        if (first && stopQueued()) {
            waiting.requestStop(); // the shard stops: no wait, the messages before the stop fail
        }
        if (!waiting.failed(failure, byStore, services.scheduler(), services.entityRestartBackoff())) {
            waiting.failStopping(d.sink());
            return true;
        }
        hold(d);
        return false;
    }

    /** Replies or fails, once the handler and any write of its state are done. */
    void complete(ReplySink sink, @Nullable Object value, @Nullable Throwable failure) {
        if (life instanceof CellLife.Active active && active.passivationRequested()) {
            passivateInstance(active.instance());
        }
        MessageHandling.answer(this, sink, value, failure);
    }

    /** Passivates: destroys the instance, keeping its stored state for a next incarnation on this node. */
    private void passivateInstance(Object entity) {
        EntityTransfer stored = durable.current();
        moveTo(CellLife.PASSIVATED);
        destroyInstance(entity);
        durable.keep(stored);
        shard.region().entityPassivated(this);
    }

    private void stopInstance() {
        CellLife before = life;
        EntityTransfer stored = durable.current();
        if (stored != null) {
            shard.stoppedWith(stored);
        }
        moveTo(CellLife.STOPPED);
        if (before instanceof CellLife.Active active) {
            destroyInstance(active.instance());
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void destroyInstance(Object entity) {
        messages = 0;
        durable.forget();
        shard.region().entityStopped(this);
        try {
            ((dev.sharding.spi.EntityFactory) services.type().factory()).destroy(entity);
        } catch (Throwable t) {
            MessageHandling.rethrowFatal(t);
            log.warn("Stopping entity [{}/{}] failed", typeName(), entityId, t);
        }
    }

    /**
     * Destroys the instance and forgets its state, without keeping it for the next incarnation: its last write may or
     * may not be stored ({@link dev.sharding.StoreOutcomeUnknownException}), so the next message starts the entity
     * from what the store holds. Runs where the cell's messages run, while the mailbox waits for that write.
     */
    void dropForReload() {
        if (life instanceof CellLife.Active active) {
            moveTo(CellLife.PASSIVATED);
            destroyInstance(active.instance());
        }
    }

    /** The allocation epoch of the entity's shard on this node. */
    public long shardEpoch() {
        return shard.epoch();
    }

    /** The instance asked to be passivated once its current message is done. */
    void requestPassivation() {
        if (life instanceof CellLife.Active active && !active.passivationRequested()) {
            moveTo(new CellLife.Active(active.instance(), true));
        }
    }

    /** The entity's durable state across its incarnations here. */
    DurableEntityState durable() {
        return durable;
    }

    /** The parts the type's entities share. */
    EntityServices services() {
        return services;
    }

    /** The region, as its entities see it. */
    EntityRegion region() {
        return shard.region();
    }

    /** The entity's durable state; see {@link dev.sharding.EntityContext#state}. */
    <S> EntityState<S> state(Class<S> stateType, Supplier<S> initial) {
        return durable.state(stateType, initial);
    }

    /** The entity's event-sourced state; see {@link dev.sharding.EntityContext#eventSourced}. */
    <S, E> dev.sharding.EventSourcedState<S, E> eventSourced(
            Class<S> stateType,
            Class<E> eventType,
            java.util.function.Supplier<S> initial,
            java.util.function.BiFunction<S, ? super E, S> apply) {
        return durable.eventSourced(stateType, eventType, initial, apply);
    }

    String typeName() {
        return services.type().name();
    }

    public String entityId() {
        return entityId;
    }

    public int shardId() {
        return shard.shardId();
    }

    String nodeName() {
        return shard.region().nodeName();
    }

    @Override
    public String toString() {
        return "Entity[" + typeName() + "/" + entityId + "]";
    }
}
