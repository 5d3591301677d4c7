package dev.sharding.internal.entity;

import dev.sharding.EntityContext;
import dev.sharding.EntityState;
import dev.sharding.EventSourcedState;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.EntityTransfer;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
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
 * messages before it. Its durable state, read, written through and carried, is {@link DurableEntityState}; what a
 * message goes through before the handler (the shard dropped, the node not serving, the entity's start) is
 * {@link EntityStart}, and the handling itself {@link MessageHandling}.
 *
 * <p>The cell is also what its instance sees of its place in the cluster, its {@link EntityContext}: every call goes
 * to the cell, on the entity's own thread. A node holds millions of cells, most of them idle, so a cell keeps what it
 * needs in its own fields: its instance beside its life, its durable state made only for a type that has one (or
 * when asked), and its mailbox's queue and count in the mailbox itself.
 */
public final class EntityCell extends Mailbox implements Passivation.Candidate, ParkedEntities.Parked, EntityContext {

    private static final Logger log = LoggerFactory.getLogger(EntityCell.class);

    private final EntityShard shard;

    private final String entityId;

    /**
     * Where the entity is in its life, with what that state holds (a failing start's wait); moved only by the thread
     * draining the mailbox ({@link #moveTo}), read by others.
     */
    private volatile CellLife life = CellLife.NEW;

    /**
     * The instance while the entity is active ({@link CellLife#ACTIVE}): set before the life moves there and cleared
     * after it leaves, by the draining thread, which alone reads it.
     */
    private @Nullable Object instance;

    /**
     * The entity's durable state across its incarnations here, made by the draining thread when first needed: before
     * the first message of a type with state, never for a type without (unless its instance asks for state, to be
     * told it has none).
     */
    private @Nullable DurableEntityState durable;

    /**
     * When the entity last took a message, on the node's coarse clock, as {@link ActivityTicks} keeps it (a hint for
     * the sweep; racy reads are fine).
     */
    private int lastActive;

    /**
     * Messages taken since the entity started here, up to {@link Integer#MAX_VALUE} (a hint for the
     * least-frequently-used strategy; racy reads).
     */
    private int messages;

    /** The entity id's hash as {@link CellTable} spreads it; kept in what would be the cell's padding. */
    final int hash;

    /** The next cell of the same bucket of its shard's {@link CellTable}; written only by the table. */
    @Nullable
    EntityCell chainNext;

    public EntityCell(EntityShard shard, String entityId) {
        this.shard = shard;
        this.entityId = entityId;
        this.hash = CellTable.hash(entityId);
    }

    @Override
    Executor executor() {
        return shard.services().executor();
    }

    /**
     * Offers a delivery.
     *
     * @return false when the cell has left its shard (passivated and idle): the delivery was not taken and must go
     *     to a new cell
     */
    public boolean enqueue(Delivery delivery) {
        if (!count(delivery, services().mailboxSize())) {
            shard.region().mailboxFull(this, delivery.sink()); // signals always fit: they stop and passivate
            return true;
        }
        Node node = put(delivery);
        CellLife now = life;
        if (now == CellLife.RETIRED && takeBack(node)) {
            // the cell retired after its last message; the retiring thread checks the mailbox after marking it dead,
            // so either it saw this delivery (and revived) or this thread sees dead and takes it back
            return false;
        }
        StartBackoff waiting = now.backoff();
        if (waiting != null && !waiting.offered(delivery) && takeBack(node)) {
            waiting.reject(delivery); // the entity cannot start and enough messages wait for it
            return true;
        }
        schedule();
        return true;
    }

    @Override
    public boolean isActive() {
        return life.phase() == EntityLifecycle.ACTIVE;
    }

    @Override
    public long lastActiveMillis() {
        return ActivityTicks.millis(lastActive, shard.region().clockMillis());
    }

    @Override
    public long messages() {
        return messages;
    }

    /** The runtime passivates the entity (idle, or over the limit of live entities); see {@link #passivate()}. */
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
    void moveTo(CellLife to) {
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
        resumeAfterCompletion(isActive());
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
            Object active = instance;
            if (active != null && (signal.force() || lastActiveMillis() <= signal.idleSinceMillis())) {
                passivateInstance(active);
            }
            return true;
        }
        int ready = EntityStart.ready(this, d, life);
        if (ready != EntityStart.GO_ON) {
            return ready == EntityStart.DONE;
        }
        Object entity = java.util.Objects.requireNonNull(instance);
        lastActive = ActivityTicks.of(shard.region().clockMillis());
        Object message = d.message();
        if (message == Signal.Start.INSTANCE) {
            return true; // started without a message (remembered entity)
        }
        if (messages != Integer.MAX_VALUE) {
            messages++;
        }
        return MessageHandling.handle(this, entity, message, d.sink());
    }

    /** The instance was created: the entity is active. */
    void started(Object entity) {
        instance = entity;
        moveTo(CellLife.ACTIVE);
        shard.region().entityStarted(this);
    }

    /** Whether the entity has its instance (it is active, or passivation was asked for). */
    boolean hasInstance() {
        return instance != null;
    }

    /** The instance could not be created: the entity's durable state, if it has one, forgets the attempt. */
    void creationFailed() {
        instance = null;
        if (durable != null) {
            durable.creationFailed();
        }
    }

    /** Where the entity is in its life. */
    CellLife life() {
        return life;
    }

    /** Replies or fails, once the handler and any write of its state are done. */
    void complete(ReplySink sink, @Nullable Object value, @Nullable Throwable failure) {
        Object active = instance;
        if (active != null && life == CellLife.PASSIVATION_REQUESTED) {
            passivateInstance(active);
        }
        MessageHandling.answer(this, sink, value, failure);
    }

    /**
     * After a handler: writes the entity's state through if it changed, then completes ({@link
     * DurableEntityState#afterHandler}); a type without state completes at once.
     *
     * @return false when the mailbox waits for the write
     */
    boolean afterHandler(
            ReplySink sink, @Nullable Object value, @Nullable Throwable failure, @Nullable String messageId) {
        DurableEntityState state = durable;
        if (state == null && messageId == null) {
            complete(sink, value, failure);
            return true;
        }
        return durable().afterHandler(sink, value, failure, messageId);
    }

    /** Passivates: destroys the instance, keeping its stored state for a next incarnation on this node. */
    private void passivateInstance(Object entity) {
        DurableEntityState state = durable;
        EntityTransfer stored = state == null ? null : state.current();
        moveTo(CellLife.PASSIVATED);
        destroyInstance(entity);
        if (state != null) {
            state.keep(stored);
        }
        shard.region().entityPassivated(this);
    }

    private void stopInstance() {
        Object active = instance;
        DurableEntityState state = durable;
        EntityTransfer stored = state == null ? null : state.current();
        if (stored != null) {
            shard.stoppedWith(stored);
        }
        moveTo(CellLife.STOPPED);
        if (active != null) {
            destroyInstance(active);
        }
    }

    /** Destroys the instance, which has just left the active phase. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void destroyInstance(Object entity) {
        instance = null;
        messages = 0;
        if (durable != null) {
            durable.forget();
        }
        shard.region().entityStopped(this);
        try {
            ((dev.sharding.spi.EntityFactory) services().type().factory()).destroy(entity);
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
        Object active = instance;
        if (active != null) {
            moveTo(CellLife.PASSIVATED);
            destroyInstance(active);
        }
    }

    /** The allocation epoch of the entity's shard on this node. */
    public long shardEpoch() {
        return shard.epoch();
    }

    /** The entity's durable state across its incarnations here, made the first time it is needed. */
    DurableEntityState durable() {
        DurableEntityState state = durable;
        if (state == null) {
            state = new DurableEntityState(this, shard);
            durable = state;
        }
        return state;
    }

    /** The parts the type's entities share. */
    EntityServices services() {
        return shard.services();
    }

    /** The region, as its entities see it. */
    EntityRegion region() {
        return shard.region();
    }

    /** The instance asks to be passivated once its current message is done ({@link EntityContext#passivate}). */
    @Override
    public void passivate() {
        if (life == CellLife.ACTIVE) {
            moveTo(CellLife.PASSIVATION_REQUESTED);
        }
    }

    @Override
    public <S> EntityState<S> state(Class<S> stateType, Supplier<S> initial) {
        return durable().state(stateType, initial);
    }

    @Override
    public <S, E> EventSourcedState<S, E> eventSourced(
            Class<S> stateType, Class<E> eventType, Supplier<S> initial, BiFunction<S, ? super E, S> apply) {
        return durable().eventSourced(stateType, eventType, initial, apply);
    }

    @Override
    public String typeName() {
        return services().type().name();
    }

    @Override
    public String entityId() {
        return entityId;
    }

    @Override
    public int shardId() {
        return shard.shardId();
    }

    @Override
    public String nodeName() {
        return shard.region().nodeName();
    }

    @Override
    public String toString() {
        return "Entity[" + typeName() + "/" + entityId + "]";
    }
}
