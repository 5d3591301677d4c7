package dev.sharding.internal.entity;

import dev.sharding.EntityState;
import dev.sharding.EventSourcedState;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.spi.Recovery;
import dev.sharding.spi.ShardingStore;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable state of one entity on this node, across its incarnations: read before its first message (or taken
 * from what the previous owner carried), handed to the instance as its {@link EntityState}, written through after each
 * handler that changed it (the reply waits for the write), kept on passivation for the next incarnation, and carried
 * to the next owner on a stop.
 *
 * <p>Used only by the thread draining the entity's mailbox, or by a completion that then resumes it.
 */
final class DurableEntityState {

    private static final Logger log = LoggerFactory.getLogger(DurableEntityState.class);

    private final EntityCell cell;

    private final EntityShard shard;

    private final EntityServices services;

    /** The stored state read for the next incarnation: empty when none is stored; null when not read yet. */
    private @Nullable Optional<EntityTransfer> loaded;

    private @Nullable Throwable loadFailure;

    /** The state the live instance sees, once it asked for it. */
    private @Nullable HeldState entityState;

    /**
     * What the journal gave an event-sourced entity to start from (its latest snapshot and the events after it), until
     * the instance asks for its state; {@link #loaded} then holds its last sequence number and applied ids.
     */
    private @Nullable Recovery recovered;

    /**
     * The ids of the messages the entity applied lately; read with the state. Made only once the entity has some, or
     * handles a message with an id: most entities never do, and each one costs memory on every live entity.
     */
    private @Nullable AppliedIds applied;

    DurableEntityState(EntityCell cell, EntityShard shard) {
        this.cell = cell;
        this.shard = shard;
        this.services = shard.services();
    }

    /** The ids of the messages applied lately, made the first time they are needed. */
    private AppliedIds applied() {
        AppliedIds a = applied;
        if (a == null) {
            a = new AppliedIds(cell, services);
            applied = a;
        }
        return a;
    }

    /** The ids as stored now (read, carried, kept, or forgotten with {@code null}). */
    private void setApplied(byte @Nullable [] bytes) {
        if (bytes != null) {
            applied().set(bytes);
        } else if (applied != null) {
            applied.set(null);
        }
    }

    /** The ids as stored, or {@code null} for none. */
    private byte @Nullable [] storedApplied() {
        AppliedIds a = applied;
        return a == null ? null : a.stored();
    }

    /** Whether the stored state must be read before the instance is created. */
    boolean mustLoad() {
        return services.type().stateType() != null && loaded == null;
    }

    /** Why the last read failed, once; null when it did not. */
    @Nullable
    Throwable takeLoadFailure() {
        Throwable failure = loadFailure;
        loadFailure = null;
        return failure;
    }

    /** Reads the entity's stored state (or takes what the previous owner carried), then resumes the mailbox. */
    void load() {
        String entityId = cell.entityId();
        EntityTransfer carried = shard.takeTransfer(entityId);
        if (carried != null) {
            loaded = Optional.of(carried);
            setApplied(carried.applied());
            cell.resume();
            return;
        }
        if (services.events() != null) {
            recover(entityId);
            return;
        }
        CompletableFuture<Optional<ShardingStore.StoredState>> read;
        try {
            read = services.store().read(cell.typeName(), entityId);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((stored, failure) -> {
            if (failure != null) {
                loadFailure = unwrap(failure);
            } else {
                loaded = stored.map(s -> new EntityTransfer(
                        entityId, s.state().length == 0 ? null : s.state(), s.version(), s.applied()));
                setApplied(stored.map(ShardingStore.StoredState::applied).orElse(null));
            }
            cell.resume();
        });
    }

    /** Reads an event-sourced entity's latest snapshot and the events after it, then resumes the mailbox. */
    private void recover(String entityId) {
        CompletableFuture<Recovery> read;
        try {
            read = services.store().recover(cell.typeName(), entityId);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((recovery, failure) -> {
            if (failure != null) {
                loadFailure = unwrap(failure);
            } else {
                recovered = recovery;
                loaded = Optional.of(new EntityTransfer(entityId, null, recovery.lastSequenceNr(), recovery.applied()));
                setApplied(recovery.applied());
            }
            cell.resume();
        });
    }

    /**
     * After a handler: write the state through if it changed, then complete. Returns false when the mailbox waits for
     * the write (its completion completes and resumes).
     */
    boolean afterHandler(
            ReplySink sink, @Nullable Object value, @Nullable Throwable failure, @Nullable String messageId) {
        HeldState s = entityState;
        if (messageId == null && (s == null || !s.isDirty())) {
            cell.complete(sink, value, failure);
            return true;
        }
        if (failure != null) {
            if (s != null) {
                s.discard(); // a message whose handler failed has no effect, on the state either
            }
            cell.complete(sink, value, failure); // and its id is not recorded: a retry runs it again
            return true;
        }
        long writeStart = System.nanoTime();
        CompletableFuture<Void> write;
        try {
            if (messageId == null) {
                write = Objects.requireNonNull(s)
                        .writeThrough(
                                services.store(),
                                cell.typeName(),
                                cell.entityId(),
                                cell.shardId(),
                                shard.epoch(),
                                storedApplied());
            } else {
                write = recordApplied(sink, s, messageId, value);
                if (write == null) {
                    return true; // failed and answered
                }
            }
        } catch (RuntimeException unstorable) {
            // the codec could not encode the state: no store was asked, the value is back to the stored one
            WriteFailures.answer(cell, shard, services, sink, unstorable, false, System.nanoTime() - writeStart);
            return true;
        }
        if (write.isDone()) {
            completeAfterWrite(sink, value, write, writeStart);
            return true;
        }
        write.whenComplete((v, t) -> {
            BlockedThreads.Watched store = services.blockedThreads().storeThread();
            long outer = store == null ? 0 : BlockedThreads.enter(store);
            try {
                completeAfterWrite(sink, value, write, writeStart);
                cell.resumeAfterCompletion();
            } finally {
                if (store != null) {
                    BlockedThreads.exit(store, outer);
                }
            }
        });
        return false;
    }

    /**
     * Writes the state (changed or not) with the message id and its encoded reply added to the applied ones, in one
     * write; the new window becomes the entity's once durable. Returns null when the reply cannot be recorded (the
     * message then failed, with no effect).
     */
    private @Nullable CompletableFuture<Void> recordApplied(
            ReplySink sink, @Nullable HeldState s, String messageId, @Nullable Object value) {
        if (!services.store().capabilities().contains(ShardingStore.Capability.APPLIED_MESSAGES)) {
            if (s != null) {
                s.discard();
            }
            WriteFailures.answer(
                    cell,
                    shard,
                    services,
                    sink,
                    new UnsupportedOperationException(
                            services.store().getClass().getName() + " cannot store the ids of applied messages"),
                    false,
                    0);
            return null;
        }
        byte[] reply;
        try {
            reply = value == null ? null : services.codec().encode(value);
        } catch (RuntimeException e) {
            if (s != null) {
                s.discard();
            }
            cell.complete(
                    sink,
                    null,
                    new IllegalStateException(
                            "The reply to message " + messageId + " is a "
                                    + value.getClass().getName()
                                    + ", which the codec cannot encode, so it cannot be recorded;"
                                    + " the message had no effect: " + e.getMessage(),
                            e));
            return null;
        }
        AppliedMessages next = applied().plus(messageId, reply, shard.region().storeMillis());
        byte[] nextBytes = next.encode();
        CompletableFuture<Void> write;
        if (s != null) {
            write = s.writeThrough(
                    services.store(), cell.typeName(), cell.entityId(), cell.shardId(), shard.epoch(), nextBytes);
        } else {
            // the instance never asked for its state: it is stored again as it is, with the ids
            write = UnchangedState.storeWithIds(
                            services, cell, shard.epoch(), loaded == null ? null : loaded.orElse(null), nextBytes)
                    .thenAccept(stored -> loaded = Optional.of(stored));
        }
        return write.thenRun(() -> applied().written(next, nextBytes));
    }

    /**
     * The reply recorded for a message id the entity applied lately, if any ({@link AppliedIds#recordedReply}).
     *
     * @return what was recorded: nothing, another message, or the reply to this one
     */
    AppliedIds.Recorded recordedReply(String messageId, long fingerprint) {
        return applied().recordedReply(messageId, fingerprint, shard.region().storeMillis());
    }

    /** Computes the fingerprint of an identified message about to be handled ({@link AppliedIds#fingerprint}). */
    long fingerprint(Object message) {
        return applied().fingerprint(message);
    }

    private void completeAfterWrite(
            ReplySink sink, @Nullable Object value, CompletableFuture<Void> write, long writeStart) {
        Throwable writeFailure = null;
        try {
            write.join();
        } catch (Throwable t) {
            writeFailure = unwrap(t);
        }
        if (writeFailure == null) {
            services.metrics().stateWritten(System.nanoTime() - writeStart, true);
            cell.complete(sink, value, null);
            return;
        }
        WriteFailures.answer(cell, shard, services, sink, writeFailure, true, System.nanoTime() - writeStart);
    }

    /** The entity's durable state; see {@link dev.sharding.EntityContext#state}. */
    <S> EntityState<S> state(Class<S> stateType, Supplier<S> initial) {
        Class<?> declared = services.type().stateType();
        if (declared == null || !declared.equals(stateType)) {
            throw new IllegalStateException("Entity type " + cell.typeName() + " declares "
                    + (declared == null ? "no state" : "state " + declared.getName()) + ", not " + stateType.getName()
                    + " (EntityType.withState)");
        }
        if (services.events() != null) {
            throw new IllegalStateException("Entity type " + cell.typeName() + " is event-sourced: its state is an "
                    + "EventSourcedState (EntityContext.eventSourced), not an EntityState");
        }
        HeldState s = entityState;
        if (s == null) {
            Optional<EntityTransfer> stored = loaded == null ? Optional.empty() : loaded;
            EntityTransfer t = stored.orElse(null);
            s = new EntityStateImpl<>(
                    cell.typeName() + "/" + cell.entityId(),
                    stateType,
                    initial,
                    services.codec(),
                    t == null ? null : t.state(),
                    t == null ? 0 : t.version(),
                    services.serializeLocalMessages());
            entityState = s;
        }
        @SuppressWarnings("unchecked")
        EntityState<S> typed = (EntityState<S>) s;
        return typed;
    }

    /** The entity's event-sourced state; see {@link dev.sharding.EntityContext#eventSourced}. */
    <S, E> EventSourcedState<S, E> eventSourced(
            Class<S> stateType, Class<E> eventType, Supplier<S> initial, BiFunction<S, ? super E, S> apply) {
        EventCodec events = EventSourcedStateImpl.checkDeclared(services, stateType, eventType);
        HeldState held = entityState;
        if (held == null) {
            held = EventSourcedStateImpl.start(
                    cell.typeName() + "/" + cell.entityId(),
                    stateType,
                    eventType,
                    initial,
                    apply,
                    services,
                    events,
                    recovered,
                    loaded == null ? null : loaded.orElse(null));
            recovered = null; // folded: the events go
            entityState = held;
        }
        if (!(held instanceof EventSourcedStateImpl<?, ?> es)
                || !es.stateType().equals(stateType)
                || !es.eventType().equals(eventType)) {
            throw new IllegalStateException("Entity [" + cell.typeName() + "/" + cell.entityId()
                    + "] asked for its state as another type before");
        }
        @SuppressWarnings("unchecked")
        EventSourcedState<S, E> typed = (EventSourcedState<S, E>) es;
        return typed;
    }

    /** The instance could not be created: the state it may have asked for is gone with it. */
    void creationFailed() {
        entityState = null;
    }

    /** The instance was passivated: the stored state it had is kept for a next incarnation on this node. */
    void keep(@Nullable EntityTransfer stored) {
        loaded = stored == null ? null : Optional.of(stored);
        if (stored != null) {
            setApplied(stored.applied());
        }
    }

    /** The instance's stored state now (to carry to the shard's next owner, or keep), or null when it has none. */
    @Nullable
    EntityTransfer current() {
        HeldState s = entityState;
        return s == null
                ? null
                : new EntityTransfer(cell.entityId(), s.storedBytes(), s.storedVersion(), storedApplied());
    }

    /** The instance is destroyed. */
    void forget() {
        entityState = null;
        recovered = null;
        loaded = null;
        setApplied(null);
    }

    /** A failure to pass on from a dependent stage, wrapped once as {@link CompletableFuture} expects. */
    static CompletionException rethrown(Throwable t) {
        return t instanceof CompletionException ce ? ce : new CompletionException(t);
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
