package dev.sharding.internal;

import dev.sharding.AskTimeoutException;
import dev.sharding.BufferFullException;
import dev.sharding.EntityException;
import dev.sharding.Member;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardingException;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.protocol.FailureKind;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One ask waiting for its reply: the caller's future, the reply type it expects, and the member it was last sent to
 * (so that the ask fails fast when that member leaves).
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

    PendingAsk(Class<R> replyType, String typeName, String entityId, long deadlineNanos) {
        this.replyType = replyType;
        this.typeName = typeName;
        this.entityId = entityId;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void reply(@Nullable Object value) {
        if (value == null || replyType.isInstance(value)) {
            future.complete(replyType.cast(value));
        } else {
            future.completeExceptionally(new MessageRejectedException("Entity [" + typeName + "/" + entityId
                    + "] replied with " + value.getClass().getName() + ", not the expected " + replyType.getName()));
        }
    }

    @Override
    public void fail(FailureKind kind, String className, @Nullable String message) {
        future.completeExceptionally(
                switch (kind) {
                    case ENTITY_FAILED -> new EntityException(typeName, entityId, className, message);
                    case UNHANDLED -> new UnhandledMessageException(String.valueOf(message));
                    case REJECTED -> new MessageRejectedException(String.valueOf(message));
                    case BUFFER_FULL -> new BufferFullException(String.valueOf(message));
                    case UNAVAILABLE -> new ShardingException(String.valueOf(message));
                    case PARTITIONED -> new dev.sharding.ClusterPartitionedException(String.valueOf(message));
                });
    }

    void fail(Throwable t) {
        future.completeExceptionally(t);
    }

    void expire() {
        future.completeExceptionally(new AskTimeoutException("Ask to [" + typeName + "/" + entityId
                + "] timed out"
                + (target == null
                        ? " before its shard's home was known"
                        : " waiting for the entity's reply from " + target)));
    }

    boolean isDone() {
        return future.isDone();
    }
}
