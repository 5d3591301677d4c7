package dev.sharding.internal;

import dev.sharding.AskTimeoutException;
import dev.sharding.BufferFullException;
import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityException;
import dev.sharding.EntityUnreachableException;
import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingException;
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
 * @param <R> the reply type
 */
final class PendingAsk<R> implements ReplySink {

    final CompletableFuture<R> future = new CompletableFuture<>();

    final Class<R> replyType;

    final String typeName;

    final String entityId;

    final long deadlineNanos;

    volatile long correlationId;

    volatile @Nullable Member target;

    /** Whether it was last sent to another node (set before the send). */
    volatile boolean remote;

    private final long startNanos;

    private final EntityTypeMetrics metrics;

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

    PendingAsk(
            Class<R> replyType,
            String typeName,
            String entityId,
            long startNanos,
            long timeoutNanos,
            EntityTypeMetrics metrics) {
        this.replyType = replyType;
        this.typeName = typeName;
        this.entityId = entityId;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + Math.max(1, timeoutNanos);
        this.metrics = metrics;
    }

    /** An ask with a given deadline and no metrics, for tests of the registry. */
    PendingAsk(Class<R> replyType, String typeName, String entityId, long deadlineNanos) {
        this(replyType, typeName, entityId, deadlineNanos - 1, 1, EntityTypeMetrics.NONE);
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
        if (value == null || replyType.isInstance(value)) {
            if (claim(AskOutcome.SUCCESS)) {
                future.complete(replyType.cast(value));
            }
        } else if (claim(AskOutcome.REJECTED)) {
            future.completeExceptionally(new MessageRejectedException("Entity [" + typeName + "/" + entityId
                    + "] replied with " + value.getClass().getName() + ", not the expected " + replyType.getName()));
        }
    }

    @Override
    public void fail(FailureKind kind, String className, @Nullable String message) {
        if (claim(outcomeOf(kind))) {
            future.completeExceptionally(exceptionOf(kind, typeName, entityId, className, message));
        }
    }

    /** The outcome a failure where the entity lives stands for. */
    static AskOutcome outcomeOf(FailureKind kind) {
        return switch (kind) {
            case ENTITY_FAILED -> AskOutcome.FAILED;
            case UNHANDLED, REJECTED, BUFFER_FULL -> AskOutcome.REJECTED;
            case UNAVAILABLE, PARTITIONED -> AskOutcome.UNREACHABLE;
        };
    }

    /** The exception a caller gets for a failure where the entity lives. */
    static ShardingException exceptionOf(
            FailureKind kind, String typeName, String entityId, String className, @Nullable String message) {
        return switch (kind) {
            case ENTITY_FAILED -> new EntityException(typeName, entityId, className, message);
            case UNHANDLED -> new UnhandledMessageException(String.valueOf(message));
            case REJECTED -> new MessageRejectedException(String.valueOf(message));
            case BUFFER_FULL -> new BufferFullException(String.valueOf(message));
            case UNAVAILABLE -> new ShardingException(String.valueOf(message));
            case PARTITIONED -> new ClusterPartitionedException(String.valueOf(message));
        };
    }

    void fail(Throwable t) {
        if (claim(outcomeOf(t))) {
            future.completeExceptionally(t);
        }
    }

    /** The outcome an exception stands for. */
    static AskOutcome outcomeOf(Throwable t) {
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
        if (t instanceof EntityException) {
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
        future.completeExceptionally(new AskTimeoutException("Ask to [" + typeName + "/" + entityId
                + "] timed out"
                + (target == null
                        ? " before its shard's home was known"
                        : " waiting for the entity's reply from " + target)));
    }

    /** Whether an outcome claimed it, or its caller cancelled it. */
    boolean isDone() {
        return claimed != 0 || future.isDone();
    }
}
