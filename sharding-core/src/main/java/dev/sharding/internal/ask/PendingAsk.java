package dev.sharding.internal.ask;

import dev.sharding.AskTimeoutException;
import dev.sharding.BufferFullException;
import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityException;
import dev.sharding.EntityUnreachableException;
import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingException;
import dev.sharding.StoreUnavailableException;
import dev.sharding.UndecodableTypeException;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One ask waiting for its reply: the caller's future, the reply type it expects, and the member it was last sent to
 * (so that the ask fails fast when that member leaves).
 *
 * <p>The first outcome wins: it claims the ask ({@link #claim}), is recorded in the type's metrics with the ask's
 * time, and only then completes the future; later outcomes (a reply racing the timeout) change nothing.
 *
 * <p>The future is completed where {@link AskCompletions} allows, so that the callers' stages never run on the thread
 * that decided the outcome when that is a thread of the runtime: in place on an entity thread, otherwise by this ask
 * run as a task (it carries its outcome in two fields, so the hand-off allocates nothing more).
 *
 * @param <R> the reply type
 */
public final class PendingAsk<R> implements ReplySink, Runnable {

    public final CompletableFuture<R> future = new CompletableFuture<>();

    final Class<R> replyType;

    public final String typeName;

    public final String entityId;

    final long deadlineNanos;

    volatile long correlationId;

    public volatile @Nullable Member target;

    /** Whether it was last sent to another node (set before the send). */
    public volatile boolean remote;

    private final long startNanos;

    private final EntityTypeMetrics metrics;

    private final AskCompletions completions;

    /** The outcome a hand-off carries (written before the hand-off, read by {@link #run}). */
    private @Nullable Object value;

    private @Nullable Throwable failure;

    /** 1 once an outcome claimed the ask. */
    @SuppressWarnings("unused") // through CLAIMED
    private volatile int claimed;

    private static final VarHandle CLAIMED;

    static {
        try {
            CLAIMED = MethodHandles.lookup().findVarHandle(PendingAsk.class, "claimed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public PendingAsk(
            Class<R> replyType,
            String typeName,
            String entityId,
            long startNanos,
            long timeoutNanos,
            EntityTypeMetrics metrics,
            AskCompletions completions) {
        this.replyType = replyType;
        this.typeName = typeName;
        this.entityId = entityId;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + Math.max(1, timeoutNanos);
        this.metrics = metrics;
        this.completions = completions;
    }

    /** An ask with a given deadline and no metrics, for tests of the registry. */
    public PendingAsk(Class<R> replyType, String typeName, String entityId, long deadlineNanos) {
        this(replyType, typeName, entityId, deadlineNanos - 1, 1, EntityTypeMetrics.NONE, AskCompletions.INLINE);
    }

    /** Claims the ask for an outcome and records it; false when another outcome came first. */
    private boolean claim(AskOutcome outcome) {
        if (!CLAIMED.compareAndSet(this, 0, 1)) {
            return false;
        }
        metrics.askCompleted(outcome, remote, System.nanoTime() - startNanos);
        return true;
    }

    @Override
    public void reply(@Nullable Object value) {
        reply(value, completions.inlineHere());
    }

    /** A reply, on a thread of the callbacks' executor (the transport handed it there). */
    public void replyOnCallbackThread(@Nullable Object value) {
        reply(value, true);
    }

    private void reply(@Nullable Object value, boolean inline) {
        if (value == null || replyType.isInstance(value)) {
            if (claim(AskOutcome.SUCCESS)) {
                settle(value, null, inline);
            }
        } else if (claim(AskOutcome.REJECTED)) {
            settle(
                    null,
                    new MessageRejectedException("Entity [" + typeName + "/" + entityId + "] replied with "
                            + value.getClass().getName() + ", not the expected " + replyType.getName()),
                    inline);
        }
    }

    @Override
    public void fail(FailureKind kind, String className, @Nullable String message) {
        fail(kind, className, message, completions.inlineHere());
    }

    /** A failure where the entity lives, on a thread of the callbacks' executor (the transport handed it there). */
    public void failOnCallbackThread(FailureKind kind, String className, @Nullable String message) {
        fail(kind, className, message, true);
    }

    private void fail(FailureKind kind, String className, @Nullable String message, boolean inline) {
        if (claim(outcomeOf(kind))) {
            settle(null, exceptionOf(kind, typeName, entityId, className, message), inline);
        }
    }

    /** Completes the future here, or hands the completion to the callbacks' executor. */
    private void settle(@Nullable Object result, @Nullable Throwable cause, boolean inline) {
        if (inline) {
            finish(result, cause);
        } else {
            this.value = result;
            this.failure = cause;
            completions.handOff(this);
        }
    }

    /** The handed-off completion, on the callbacks' executor. */
    @Override
    public void run() {
        finish(value, failure);
    }

    private void finish(@Nullable Object result, @Nullable Throwable cause) {
        if (cause == null) {
            future.complete(replyType.cast(result));
        } else {
            future.completeExceptionally(cause);
        }
    }

    /** The outcome a failure where the entity lives stands for. */
    public static AskOutcome outcomeOf(FailureKind kind) {
        return switch (kind) {
            case ENTITY_FAILED, STORE_FAILED, STORE_OUTCOME_UNKNOWN -> AskOutcome.FAILED;
            case UNHANDLED, REJECTED, BUFFER_FULL, KEY_REUSED -> AskOutcome.REJECTED;
            case UNAVAILABLE, PARTITIONED -> AskOutcome.UNREACHABLE;
        };
    }

    /** The exception a caller gets for a failure where the entity lives. */
    public static ShardingException exceptionOf(
            FailureKind kind, String typeName, String entityId, String className, @Nullable String message) {
        return switch (kind) {
            case ENTITY_FAILED -> new EntityException(typeName, entityId, className, message);
            case UNHANDLED -> new UnhandledMessageException(String.valueOf(message));
            case REJECTED -> new MessageRejectedException(String.valueOf(message));
            case BUFFER_FULL -> new BufferFullException(String.valueOf(message));
            case UNAVAILABLE -> new ShardingException(String.valueOf(message));
            case PARTITIONED -> new ClusterPartitionedException(String.valueOf(message));
            case STORE_FAILED -> new StoreUnavailableException(String.valueOf(message));
            case STORE_OUTCOME_UNKNOWN -> new dev.sharding.StoreOutcomeUnknownException(String.valueOf(message));
            case KEY_REUSED -> new dev.sharding.IdempotencyKeyReusedException(String.valueOf(message));
        };
    }

    @Override
    public void refuse(RuntimeException reason) {
        fail(reason);
    }

    public void fail(Throwable t) {
        fail(t, completions.inlineHere());
    }

    /** A failure, on a thread of the callbacks' executor (the transport handed it there). */
    public void failOnCallbackThread(Throwable t) {
        fail(t, true);
    }

    private void fail(Throwable t, boolean inline) {
        if (claim(outcomeOf(t))) {
            settle(null, t, inline);
        }
    }

    /** The outcome an exception stands for. */
    public static AskOutcome outcomeOf(Throwable t) {
        if (t instanceof AskTimeoutException) {
            return AskOutcome.TIMEOUT;
        }
        if (t instanceof MessageRejectedException
                || t instanceof UnhandledMessageException
                || t instanceof BufferFullException
                || t instanceof UndecodableTypeException
                || t instanceof IllegalArgumentException) {
            return AskOutcome.REJECTED;
        }
        if (t instanceof EntityException || t instanceof StoreUnavailableException) {
            return AskOutcome.FAILED;
        }
        if (t instanceof EntityUnreachableException
                || t instanceof ClusterPartitionedException
                || t instanceof ShardingException) {
            return AskOutcome.UNREACHABLE;
        }
        return AskOutcome.FAILED;
    }

    void expire() {
        if (!claim(AskOutcome.TIMEOUT)) {
            return;
        }
        settle(
                null,
                new AskTimeoutException("Ask to [" + typeName + "/" + entityId + "] timed out"
                        + (target == null
                                ? " before its shard's home was known"
                                : " waiting for the entity's reply from " + target)),
                completions.inlineHere());
    }

    /** Whether an outcome claimed it, or its caller cancelled it. */
    public boolean isDone() {
        return claimed != 0 || future.isDone();
    }
}
