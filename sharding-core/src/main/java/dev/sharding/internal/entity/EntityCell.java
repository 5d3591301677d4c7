package dev.sharding.internal.entity;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityState;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.transport.SendingThreads;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
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
 * write is durable. It holds at most {@code mailbox-size} messages (signals of the runtime always fit): beyond, a
 * message is refused as {@link EntityRegion#mailboxFull} says, so a slow store or an unfinished stage cannot make it grow
 * without bound.
 *
 * <p>The bound costs a sender one atomic add, on the word that also says whether the mailbox is scheduled (which the
 * sender reads anyway), and the draining thread one atomic add per run rather than per message: the messages a run
 * takes count against the bound until the run ends or suspends. So the mailbox never holds more than
 * {@code mailbox-size} waiting messages, and refuses a message early by at most the {@link #THROUGHPUT} messages of
 * the run under way (it may refuse with {@code mailbox-size - 32} waiting while the run's last handler runs).
 *
 * <p>The instance is created on the first message (on an entity thread) and destroyed by a stop signal, after the
 * messages before it. Its durable state, read, written through and carried, is {@link DurableEntityState}.
 */
public final class EntityCell implements Runnable, Passivation.Candidate, ParkedEntities.Parked {

    private static final Logger log = LoggerFactory.getLogger(EntityCell.class);

    public static final int THROUGHPUT = 32;

    /** The bit of {@link #state} set while the mailbox is scheduled: a run is queued, under way or suspended. */
    private static final long SCHEDULED = 1;

    /** One message counted in {@link #state}. */
    private static final long ONE = 2;

    private final EntityShard shard;

    /** The parts the type's entities share, from the shard. */
    private final EntityServices services;

    private final String entityId;

    private final ConcurrentLinkedQueue<Delivery> mailbox = new ConcurrentLinkedQueue<>();

    /**
     * {@link #SCHEDULED}, plus {@link #ONE} for each message (not signal) counted against {@code mailbox-size}: added
     * by its sender before it enters the mailbox, taken off by the run that took it when that run ends or suspends,
     * or by its sender when it takes it back.
     */
    private final AtomicLong state = new AtomicLong();

    /**
     * Where the entity is in its life, with what that state holds (its instance, a failing start's wait); moved only
     * by the thread draining the mailbox ({@link #moveTo}), read by others.
     */
    private volatile CellLife life = CellLife.NEW;

    /**
     * The mailbox's head, taken and put back: a delivery that waits for the entity's state to be read, its start to
     * be tried again, or the node to serve again. The next run takes it before the mailbox, whatever the state.
     */
    private @Nullable Delivery held;

    /** The entity's durable state across its incarnations here. */
    private final DurableEntityState durable;

    /** When the entity last took a message, on the node's coarse clock (a hint for the sweep; racy reads are fine). */
    private long lastActiveMillis;

    /** Messages taken since the entity started here (a hint for the least-frequently-used strategy; racy reads). */
    private long messages;

    private final EntityContextImpl context = new EntityContextImpl(this);

    public EntityCell(EntityShard shard, String entityId) {
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
        if (!(delivery.message() instanceof Signal)) {
            if ((state.getAndAdd(ONE) >>> 1) >= services.mailboxSize()) {
                state.getAndAdd(-ONE);
                shard.region().mailboxFull(this, delivery.sink()); // signals always fit: they stop and passivate
                return true;
            }
        }
        mailbox.offer(delivery);
        CellLife now = life;
        if (now == CellLife.RETIRED && mailbox.remove(delivery)) {
            // the cell retired after its last message; the retiring thread checks the mailbox after marking it dead,
            // so either it saw this delivery (and revived) or this thread sees dead and takes it back
            takenBack(delivery);
            return false;
        }
        StartBackoff waiting = now.backoff();
        if (waiting != null && !waiting.offered(delivery) && mailbox.remove(delivery)) {
            takenBack(delivery);
            waiting.reject(delivery); // the entity cannot start and enough messages wait for it
            return true;
        }
        schedule();
        return true;
    }

    /**
     * Schedules the mailbox unless it is scheduled. Read after the delivery entered the mailbox: a run that releases
     * the mailbox clears the bit before it looks at the mailbox, so either it sees the delivery or this sees the bit
     * clear.
     */
    private void schedule() {
        long s = state.get();
        while ((s & SCHEDULED) == 0) {
            if (state.compareAndSet(s, s | SCHEDULED)) { // fails also when only the count moved: look again
                services.executor().execute(this);
                return;
            }
            s = state.get();
        }
    }

    /** Its sender took a delivery back out of the mailbox. */
    private void takenBack(Delivery d) {
        if (!(d.message() instanceof Signal)) {
            state.getAndAdd(-ONE);
        }
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
        enqueue(new Delivery(new PassivateSignal(idleSinceMillis, overLimit), ReplySink.TELL));
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
    public void run() {
        if (!(Thread.currentThread() instanceof EntityExecutors.EntityThread)) { // those are marked when they start
            SendingThreads.nodeThread(); // what an entity sends waits at most max-wait for a slow member
        }
        long took = 0; // what this run took off the mailbox's count, in ONEs
        for (int i = 0; i < THROUGHPUT; i++) {
            Delivery d = held;
            if (d != null) {
                held = null;
            } else {
                d = mailbox.poll();
                if (d != null && !(d.message() instanceof Signal)) {
                    took += ONE;
                }
            }
            if (d == null) {
                if (life == CellLife.PASSIVATED && !shard.forceStopped() && retire()) {
                    state.getAndAdd(-took - SCHEDULED);
                    return;
                }
                break;
            }
            if (!process(d)) {
                if (took != 0) {
                    state.getAndAdd(-took);
                }
                return; // suspended; a completion reschedules this cell
            }
        }
        release(took);
    }

    /**
     * Releases the mailbox, and takes what the run took off the count in the same step; then schedules it again if a
     * message raced in: such a message is seen either here or by its sender, which schedules the cell once it is
     * released.
     */
    private void release(long took) {
        state.getAndAdd(-took - SCHEDULED);
        if (!mailbox.isEmpty()) {
            schedule();
        }
    }

    /** Leaves the shard's map once the mailbox is empty; false when a message raced in (the cell goes on). */
    private boolean retire() {
        moveTo(CellLife.RETIRED);
        if (!mailbox.isEmpty()) {
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
        services.executor().execute(this);
    }

    /**
     * Runs the mailbox again after a completion that leaves nothing taken (a state write, a handler's stage), on the
     * completing thread: when no message waits, the mailbox is released here, as a run finding it empty would do,
     * instead of by a task on the entity executor that would find nothing to do (a thread hand-off per durable
     * write).
     */
    void resumeAfterCompletion() {
        if (held == null && life instanceof CellLife.Active && mailbox.isEmpty()) {
            release(0);
        } else {
            resume();
        }
    }

    /** Handles one delivery; false when the mailbox must wait for a completion. */
    private boolean process(Delivery d) {
        if (d.message() instanceof StopSignal stop) {
            StartBackoff waiting = life.backoff();
            if (waiting != null) {
                waiting.stopped();
            }
            stopInstance();
            stop.done().run();
            return true;
        }
        if (d.message() instanceof PassivateSignal signal) {
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
            held = d;
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
                    return startFailed(d, failure, DurableEntityState.isStoreFailure(failure));
                }
                held = d;
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
                rethrowFatal(t);
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
        if (message == StartSignal.INSTANCE) {
            return true; // started without a message (remembered entity)
        }
        messages++;
        if (message instanceof TracedMessage traced) {
            TracedSink tracedSink = TracedSink.start(services.tracing(), typeName(), entityId, traced, sink);
            return handle(entity, traced.message(), tracedSink != null ? tracedSink : sink, tracedSink);
        }
        return handle(entity, message, sink, null);
    }

    /**
     * Hands one message to the entity's handler, unless the entity applied its id lately, and its outcome to the sink
     * (with a trace, the handler runs in the trace's scope); false when the mailbox must wait for a completion.
     */
    private boolean handle(Object entity, Object delivered, ReplySink sink, @Nullable TracedSink traced) {
        Object message = delivered;
        String messageId = null;
        if (message instanceof IdentifiedMessage identified) {
            messageId = identified.messageId();
            message = identified.message();
            if (repeated(messageId, message, sink)) {
                return true;
            }
        }
        Object result;
        try {
            result = traced == null
                    ? services.handlers().invoke(entity, message)
                    : traced.invoke(services.handlers(), entity, message);
        } catch (UnhandledMessageException e) {
            if (sink.isTell()) {
                log.warn("Dropped a tell: {}", e.getMessage());
            }
            sink.fail(FailureKind.UNHANDLED, e.getClass().getName(), e.getMessage());
            return true;
        } catch (Throwable t) {
            rethrowFatal(t);
            return durable.afterHandler(sink, null, t, messageId);
        }
        if (result instanceof CompletionStage<?> stage) {
            CompletableFuture<?> f = stage.toCompletableFuture();
            if (!f.isDone()) {
                String id = messageId;
                f.whenComplete((v, t) -> {
                    if (durable.afterHandler(sink, v, t == null ? null : DurableEntityState.unwrap(t), id)) {
                        resumeAfterCompletion();
                    }
                });
                return false;
            }
            try {
                return durable.afterHandler(sink, f.join(), null, messageId);
            } catch (Throwable t) {
                return durable.afterHandler(sink, null, DurableEntityState.unwrap(t), messageId);
            }
        }
        return durable.afterHandler(sink, result, null, messageId);
    }

    /**
     * A message with an id: when the entity applied that id lately, answers with the recorded reply and returns true
     * (the handler does not run again).
     */
    private boolean repeated(String messageId, Object message, ReplySink sink) {
        if (services.type().stateType() == null) {
            sink.fail(
                    FailureKind.REJECTED,
                    dev.sharding.MessageRejectedException.class.getName(),
                    "Entity type " + typeName() + " has no durable state, so it cannot apply a message id once");
            return true;
        }
        Object recorded;
        try {
            recorded = durable.recordedReply(messageId, durable.fingerprint(message));
        } catch (RuntimeException e) {
            sink.fail(
                    FailureKind.ENTITY_FAILED,
                    e.getClass().getName(),
                    "the recorded reply to message " + messageId + " cannot be decoded: " + e.getMessage());
            return true;
        }
        if (recorded == DurableEntityState.NOT_APPLIED) {
            return false;
        }
        if (recorded == DurableEntityState.KEY_REUSED) {
            sink.fail(
                    FailureKind.KEY_REUSED,
                    dev.sharding.IdempotencyKeyReusedException.class.getName(),
                    "Message id " + messageId + " was applied lately by [" + typeName() + "/" + entityId
                            + "] to another message (a " + message.getClass().getName()
                            + " that encodes differently): a message id stands for one message; nothing was applied");
            return true;
        }
        log.debug(
                "Entity [{}/{}] applied message {} before; answering with the recorded reply",
                typeName(),
                entityId,
                messageId);
        complete(sink, recorded, null);
        return true;
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
        if (first && mailbox.stream().anyMatch(q -> q.message() instanceof StopSignal)) {
            waiting.requestStop(); // the shard stops: no wait, the messages before the stop fail
        }
        if (!waiting.failed(failure, byStore, services.scheduler(), services.entityRestartBackoff())) {
            waiting.failStopping(d.sink());
            return true;
        }
        held = d;
        return false;
    }

    /** Replies or fails, once the handler and any write of its state are done. */
    void complete(ReplySink sink, @Nullable Object value, @Nullable Throwable failure) {
        if (life instanceof CellLife.Active active && active.passivationRequested()) {
            passivateInstance(active.instance());
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
        if (sink instanceof TracedSink traced) {
            traced.failedWith(failure);
        }
        sink.fail(FailureKind.ENTITY_FAILED, failure.getClass().getName(), failure.getMessage());
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
            rethrowFatal(t);
            log.warn("Stopping entity [{}/{}] failed", typeName(), entityId, t);
        }
    }

    private static void rethrowFatal(Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e;
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

    /** The entity's durable state; see {@link dev.sharding.EntityContext#state}. */
    <S> EntityState<S> state(Class<S> stateType, Supplier<S> initial) {
        return durable.state(stateType, initial);
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

    /** One message, or a {@link Signal} of the runtime, and where its outcome goes. */
    public record Delivery(Object message, ReplySink sink) {}

    /** What the runtime itself puts into a mailbox, in order with the entity's messages. */
    sealed interface Signal permits StopSignal, StartSignal, PassivateSignal {}

    /** Tells the cell to stop after the messages before it. */
    public record StopSignal(Runnable done) implements Signal {}

    /** Starts the entity without a message (a remembered entity whose shard started). */
    public enum StartSignal implements Signal {
        /** The one signal. */
        INSTANCE
    }

    /**
     * Tells the cell to passivate its instance, if it has taken no message since {@code idleSinceMillis} (idle
     * passivation) or in any case ({@code force}, for the limit of live entities).
     */
    record PassivateSignal(long idleSinceMillis, boolean force) implements Signal {}
}
