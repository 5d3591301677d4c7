package dev.sharding.internal;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityState;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.spi.ShardingStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One live entity: its instance and its mailbox. The mailbox is drained by at most one task at a time on the shared
 * entity executor, up to {@link #THROUGHPUT} messages per run, so the entity sees one message at a time in arrival
 * order with no lock. The mailbox suspends (the task ends without releasing it, and a completion resumes it) while
 * the entity's stored state is read before it starts, while a handler's {@link CompletionStage} is unfinished, and
 * while a changed {@link EntityState} is written: the reply goes out, and the next message is taken, only once the
 * write is durable.
 *
 * <p>The instance is created on the first message (on an entity thread) and destroyed by a stop signal, after the
 * messages before it.
 */
final class EntityCell implements Runnable, Passivation.Candidate {

    private static final Logger log = LoggerFactory.getLogger(EntityCell.class);

    static final int THROUGHPUT = 32;

    private static final int IDLE = 0;

    private static final int SCHEDULED = 1;

    private final Shard shard;

    private final String entityId;

    private final ConcurrentLinkedQueue<Delivery> mailbox = new ConcurrentLinkedQueue<>();

    private final AtomicInteger state = new AtomicInteger(IDLE);

    private @Nullable Object instance;

    /** Where the entity is in its life; moved only by the thread draining the mailbox, read by others. */
    private volatile EntityLifecycle lifecycle = EntityLifecycle.NEW;

    /** Set by the control thread when a handoff's deadline passed: later messages fail. */
    private volatile boolean forceStopped;

    /** A delivery taken from the mailbox that waits for the entity's state to be read. */
    private @Nullable Delivery pending;

    /** The stored state read for the next incarnation: empty when none is stored. */
    private @Nullable Optional<EntityTransfer> loaded;

    private @Nullable Throwable loadFailure;

    private @Nullable EntityStateImpl<?> entityState;

    /** When the entity last took a message, on the node's coarse clock (a hint for the sweep; racy reads are fine). */
    private long lastActiveMillis;

    private boolean passivateRequested;

    private final EntityContextImpl context = new EntityContextImpl(this);

    EntityCell(Shard shard, String entityId) {
        this.shard = shard;
        this.entityId = entityId;
    }

    /**
     * Offers a delivery.
     *
     * @return false when the cell has left its shard (passivated and idle): the delivery was not taken and must go
     *     to a new cell
     */
    boolean enqueue(Delivery delivery) {
        mailbox.offer(delivery);
        if (lifecycle == EntityLifecycle.RETIRED && mailbox.remove(delivery)) {
            // the cell retired after its last message; the retiring thread checks the mailbox after marking it dead,
            // so either it saw this delivery (and revived) or this thread sees dead and takes it back
            return false;
        }
        if (state.get() == IDLE && state.compareAndSet(IDLE, SCHEDULED)) {
            shard.region().executor().execute(this);
        }
        return true;
    }

    @Override
    public boolean isActive() {
        return lifecycle == EntityLifecycle.ACTIVE;
    }

    @Override
    public long lastActiveMillis() {
        return lastActiveMillis;
    }

    @Override
    public void passivate(long idleSinceMillis, boolean overLimit) {
        enqueue(new Delivery(new PassivateSignal(idleSinceMillis, overLimit), ReplySink.TELL));
    }

    boolean isStopped() {
        return forceStopped || lifecycle == EntityLifecycle.STOPPED;
    }

    /** Where the entity is in its life. */
    EntityLifecycle lifecycle() {
        return lifecycle;
    }

    private void moveTo(EntityLifecycle to) {
        lifecycle = lifecycle.moveTo(to, this);
    }

    /**
     * Marks the entity stopped while a handler may still run on it: later messages fail. The instance is destroyed
     * when the stop signal is reached.
     */
    void forceStop() {
        forceStopped = true;
    }

    @Override
    public void run() {
        for (int i = 0; i < THROUGHPUT; i++) {
            Delivery d = pending;
            if (d != null) {
                pending = null;
            } else {
                d = mailbox.poll();
            }
            if (d == null) {
                if (lifecycle == EntityLifecycle.PASSIVATED && !forceStopped && retire()) {
                    state.set(IDLE);
                    return;
                }
                break;
            }
            if (!process(d)) {
                return; // suspended; a completion reschedules this cell
            }
        }
        state.set(IDLE);
        if (!mailbox.isEmpty() && state.compareAndSet(IDLE, SCHEDULED)) {
            shard.region().executor().execute(this);
        }
    }

    /** Leaves the shard's map once the mailbox is empty; false when a message raced in (the cell goes on). */
    private boolean retire() {
        moveTo(EntityLifecycle.RETIRED);
        if (!mailbox.isEmpty()) {
            moveTo(EntityLifecycle.PASSIVATED);
            return false;
        }
        shard.remove(this);
        return true;
    }

    private void resume() {
        shard.region().executor().execute(this);
    }

    /** Runs the mailbox again after it waited for the node to serve again. */
    void unpark() {
        resume();
    }

    /** Handles one delivery; false when the mailbox must wait for a completion. */
    private boolean process(Delivery d) {
        if (d.message() instanceof StopSignal stop) {
            stopInstance();
            stop.done().run();
            return true;
        }
        if (d.message() instanceof PassivateSignal signal) {
            if (instance != null && (signal.force() || lastActiveMillis <= signal.idleSinceMillis())) {
                passivateInstance();
            }
            return true;
        }
        ReplySink sink = d.sink();
        Region<?> region = shard.region();
        if (shard.dropped) {
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
            pending = d;
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
        Object entity = instance;
        if (entity == null) {
            if (region.type().stateType() != null && loaded == null) {
                Throwable failure = loadFailure;
                if (failure != null) {
                    loadFailure = null;
                    moveTo(EntityLifecycle.NEW);
                    log.warn("Reading the state of [{}/{}] failed", typeName(), entityId, failure);
                    sink.fail(
                            FailureKind.ENTITY_FAILED,
                            failure.getClass().getName(),
                            "the entity's stored state could not be read: " + failure.getMessage());
                    return true;
                }
                pending = d;
                if (lifecycle != EntityLifecycle.LOADING) {
                    moveTo(EntityLifecycle.LOADING);
                }
                loadState();
                return false;
            }
            try {
                entity = region.type().factory().create(context);
                instance = entity;
                moveTo(EntityLifecycle.ACTIVE);
                region.entityStarted(this);
            } catch (Throwable t) {
                rethrowFatal(t);
                if (lifecycle != EntityLifecycle.NEW) {
                    moveTo(EntityLifecycle.NEW);
                }
                entityState = null;
                log.warn("Creating entity [{}/{}] failed", typeName(), entityId, t);
                sink.fail(FailureKind.ENTITY_FAILED, t.getClass().getName(), "creation failed: " + t.getMessage());
                return true;
            }
        }
        lastActiveMillis = region.clockMillis();
        if (d.message() == StartSignal.INSTANCE) {
            return true; // started without a message (remembered entity)
        }
        Object result;
        try {
            result = region.handlers().invoke(entity, d.message());
        } catch (UnhandledMessageException e) {
            if (sink.isTell()) {
                log.warn("Dropped a tell: {}", e.getMessage());
            }
            sink.fail(FailureKind.UNHANDLED, e.getClass().getName(), e.getMessage());
            return true;
        } catch (Throwable t) {
            rethrowFatal(t);
            return afterHandler(sink, null, t);
        }
        if (result instanceof CompletionStage<?> stage) {
            CompletableFuture<?> f = stage.toCompletableFuture();
            if (!f.isDone()) {
                f.whenComplete((v, t) -> {
                    if (afterHandler(sink, v, t == null ? null : unwrap(t))) {
                        resume();
                    }
                });
                return false;
            }
            try {
                return afterHandler(sink, f.join(), null);
            } catch (Throwable t) {
                return afterHandler(sink, null, unwrap(t));
            }
        }
        return afterHandler(sink, result, null);
    }

    /** Reads the entity's stored state (or takes what the previous owner carried), then resumes. */
    private void loadState() {
        EntityTransfer carried = shard.takeTransfer(entityId);
        if (carried != null) {
            loaded = Optional.of(carried);
            resume();
            return;
        }
        CompletableFuture<Optional<ShardingStore.StoredState>> read;
        try {
            read = shard.region().store().read(typeName(), entityId);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((stored, failure) -> {
            if (failure != null) {
                loadFailure = unwrap(failure);
            } else {
                loaded = stored.map(s -> new EntityTransfer(entityId, s.state(), s.version()));
            }
            resume();
        });
    }

    /**
     * After a handler: write the state through if it changed, then reply. Returns false when the mailbox waits for
     * the write (its completion replies and resumes).
     */
    private boolean afterHandler(ReplySink sink, @Nullable Object value, @Nullable Throwable failure) {
        EntityStateImpl<?> s = entityState;
        if (s == null || !s.isDirty()) {
            complete(sink, value, failure);
            return true;
        }
        if (failure != null) {
            s.discard(); // a message whose handler failed has no effect, on the state either
            complete(sink, value, failure);
            return true;
        }
        CompletableFuture<Void> write =
                s.writeThrough(shard.region().store(), typeName(), entityId, shardId(), shard.epoch());
        if (write.isDone()) {
            completeAfterWrite(sink, value, failure, write);
            return true;
        }
        write.whenComplete((v, t) -> {
            completeAfterWrite(sink, value, failure, write);
            resume();
        });
        return false;
    }

    private void completeAfterWrite(
            ReplySink sink, @Nullable Object value, @Nullable Throwable failure, CompletableFuture<Void> write) {
        Throwable writeFailure = null;
        try {
            write.join();
        } catch (Throwable t) {
            writeFailure = unwrap(t);
        }
        if (writeFailure == null) {
            complete(sink, value, failure);
            return;
        }
        log.warn(
                "State of [{}/{}] not stored; it is back to the stored value: {}",
                typeName(),
                entityId,
                writeFailure.toString());
        if (writeFailure instanceof dev.sharding.spi.StaleEpochException) {
            shard.region().shardFenced(shard.shardId(), shard.epoch());
        }
        sink.fail(
                FailureKind.ENTITY_FAILED,
                writeFailure.getClass().getName(),
                "the entity's state could not be stored, so the message had no effect: " + writeFailure.getMessage());
    }

    private void complete(ReplySink sink, @Nullable Object value, @Nullable Throwable failure) {
        if (passivateRequested) {
            passivateRequested = false;
            passivateInstance();
        }
        if (failure == null) {
            if (!sink.isTell() && !shard.region().serving()) {
                // the lease ran out while the handler ran: a reply now could show state another node has changed
                sink.fail(
                        FailureKind.PARTITIONED,
                        ClusterPartitionedException.class.getName(),
                        shard.region().notServingReason() + "; the message may have had an effect");
                return;
            }
            sink.reply(value);
            return;
        }
        if (sink.isTell()) {
            log.warn("Entity [{}/{}] failed handling a tell", typeName(), entityId, failure);
        } else if (log.isDebugEnabled()) {
            log.debug("Entity [{}/{}] failed handling an ask", typeName(), entityId, failure);
        }
        sink.fail(FailureKind.ENTITY_FAILED, failure.getClass().getName(), failure.getMessage());
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** Passivates: destroys the instance, keeping its stored state for a next incarnation on this node. */
    private void passivateInstance() {
        EntityStateImpl<?> s = entityState;
        moveTo(EntityLifecycle.PASSIVATED);
        destroyInstance();
        loaded = s == null ? null : Optional.of(new EntityTransfer(entityId, s.storedBytes(), s.storedVersion()));
        shard.region().entityPassivated(this);
    }

    private void stopInstance() {
        EntityStateImpl<?> s = entityState;
        if (s != null) {
            shard.stoppedWith(new EntityTransfer(entityId, s.storedBytes(), s.storedVersion()));
        }
        moveTo(EntityLifecycle.STOPPED);
        destroyInstance();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void destroyInstance() {
        Object entity = instance;
        if (entity == null) {
            return;
        }
        instance = null;
        entityState = null;
        loaded = null;
        shard.region().entityStopped(this);
        try {
            ((dev.sharding.spi.EntityFactory) shard.region().type().factory()).destroy(entity);
        } catch (Throwable t) {
            rethrowFatal(t);
            log.warn("Stopping entity [{}/{}] failed", typeName(), entityId, t);
        }
    }

    private static void rethrowFatal(Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e;
        }
    }

    /** The instance asked to be passivated once its current message is done. */
    void requestPassivation() {
        passivateRequested = true;
    }

    /** The entity's durable state; see {@link dev.sharding.EntityContext#state}. */
    <S> EntityState<S> state(Class<S> stateType, Supplier<S> initial) {
        Class<?> declared = shard.region().type().stateType();
        if (declared == null || !declared.equals(stateType)) {
            throw new IllegalStateException("Entity type " + typeName() + " declares "
                    + (declared == null ? "no state" : "state " + declared.getName()) + ", not " + stateType.getName()
                    + " (EntityType.withState)");
        }
        EntityStateImpl<?> s = entityState;
        if (s == null) {
            Optional<EntityTransfer> stored = loaded == null ? Optional.empty() : loaded;
            EntityTransfer t = stored.orElse(null);
            s = new EntityStateImpl<>(
                    typeName() + "/" + entityId,
                    stateType,
                    initial,
                    shard.region().codec(),
                    t == null ? null : t.state(),
                    t == null ? 0 : t.version());
            entityState = s;
        }
        @SuppressWarnings("unchecked")
        EntityState<S> typed = (EntityState<S>) s;
        return typed;
    }

    String typeName() {
        return shard.region().typeName();
    }

    String entityId() {
        return entityId;
    }

    int shardId() {
        return shard.shardId();
    }

    String nodeName() {
        return shard.region().nodeName();
    }

    @Override
    public String toString() {
        return "Entity[" + typeName() + "/" + entityId + "]";
    }

    /** One message, or a {@link Signal} of the runtime, and where its outcome goes. */
    record Delivery(Object message, ReplySink sink) {}

    /** What the runtime itself puts into a mailbox, in order with the entity's messages. */
    sealed interface Signal permits StopSignal, StartSignal, PassivateSignal {}

    /** Tells the cell to stop after the messages before it. */
    record StopSignal(Runnable done) implements Signal {}

    /** Starts the entity without a message (a remembered entity whose shard started). */
    enum StartSignal implements Signal {
        /** The one signal. */
        INSTANCE
    }

    /**
     * Tells the cell to passivate its instance, if it has taken no message since {@code idleSinceMillis} (idle
     * passivation) or in any case ({@code force}, for the limit of live entities).
     */
    record PassivateSignal(long idleSinceMillis, boolean force) implements Signal {}
}
