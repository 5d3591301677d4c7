package dev.sharding.internal.region;

import dev.sharding.EntityType;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.entity.IdentifiedMessage;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.MessageTracing;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of a region ({@link Region#tell}, {@link Region#ask}): a message is checked (its id, its type's
 * handler, its message id), refused at once when the node does not take messages (a tell throws, an ask fails), traced
 * when the node traces, tracked as an ask, and handed to the router. Caller threads.
 */
final class RegionSends {

    private final NodeView view;

    private final ServingState serving;

    private final AskRegistry asks;

    private final EntityType<?> type;

    private final EntityHandlers handlers;

    private final ShardSlot[] slots;

    private final ShardRouter router;

    private final EntityTypeMetrics metrics;

    /** How messages are traced, read once per message; {@code null} when the node does not trace. */
    private final @Nullable MessageTracing tracing;

    RegionSends(
            NodeView view,
            ServingState serving,
            AskRegistry asks,
            EntityType<?> type,
            EntityHandlers handlers,
            ShardSlot[] slots,
            ShardRouter router,
            EntityTypeMetrics metrics,
            @Nullable MessageTracing tracing) {
        this.view = view;
        this.serving = serving;
        this.asks = asks;
        this.type = type;
        this.handlers = handlers;
        this.slots = slots;
        this.router = router;
        this.metrics = metrics;
        this.tracing = tracing;
    }

    /** Sends a tell; throws when it cannot be sent. */
    void tell(String entityId, Object message) {
        int shard = check(entityId, message);
        if (!handlers.handles(message.getClass())) {
            throw unhandled(message);
        }
        serving.checkRunning();
        MessageTracing t = tracing;
        if (t == null) {
            router.route(slots[shard], entityId, message, null);
        } else {
            TracedSends.tell(t, router, slots[shard], type.name(), entityId, message);
        }
        metrics.told();
    }

    /** Sends an ask; its failures complete the future. */
    <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType, Duration timeout) {
        return ask(entityId, message, replyType, timeout, null, check(entityId, message));
    }

    /** Sends an ask with a message id, which its entity applies once. */
    <R> CompletableFuture<R> ask(
            String entityId, Object message, Class<R> replyType, Duration timeout, String messageId) {
        int shard = check(entityId, message);
        if (messageId == null || messageId.isEmpty() || messageId.length() > ShardingSettings.MAX_MESSAGE_ID_LENGTH) {
            throw new IllegalArgumentException("Invalid message id for type " + type.name() + ": must be 1 to "
                    + ShardingSettings.MAX_MESSAGE_ID_LENGTH + " characters");
        }
        if (type.stateType() == null) {
            throw new IllegalArgumentException("Entity type " + type.name() + " has no durable state, so it cannot"
                    + " record the ids of the messages it applied; declare one (an EntityState<S> constructor"
                    + " parameter of a @ShardedEntity, or EntityType.withState) to send messages with ids");
        }
        return ask(entityId, new IdentifiedMessage(messageId, message), replyType, timeout, message, shard);
    }

    private <R> CompletableFuture<R> ask(
            String entityId,
            Object routed,
            Class<R> replyType,
            Duration timeout,
            @Nullable Object unwrapped,
            int shard) {
        Object message = unwrapped == null ? routed : unwrapped;
        Objects.requireNonNull(replyType, "replyType");
        Objects.requireNonNull(timeout, "timeout");
        PendingAsk<R> ask = new PendingAsk<>(
                replyType, type.name(), entityId, System.nanoTime(), timeout.toNanos(), metrics, asks.completions());
        MessageTracing t = tracing;
        if (t != null) {
            routed = TracedSends.ask(t, type.name(), entityId, message, routed, ask);
        }
        if (!handlers.handles(message.getClass())) {
            ask.fail(unhandled(message));
            return ask.future;
        }
        if (!serving.isRunning()) {
            ask.fail(new ShardingException("Sharding node " + view.nodeName() + " is not running"));
            return ask.future;
        }
        String partitioned = serving.partitionedReason();
        if (partitioned != null) {
            ask.fail(serving.partitionedException(partitioned));
            return ask.future;
        }
        asks.track(ask);
        try {
            router.route(slots[shard], entityId, routed, ask);
        } catch (RuntimeException e) {
            ask.fail(e);
        }
        return ask.future;
    }

    private UnhandledMessageException unhandled(Object message) {
        return new UnhandledMessageException(
                "Entity type " + type.name() + " (" + type.entityClass().getName() + ") has no @EntityHandler for "
                        + message.getClass().getName());
    }

    private int check(String entityId, Object message) {
        if (entityId == null || entityId.isEmpty() || entityId.length() > ShardingSettings.MAX_ENTITY_ID_LENGTH) {
            throw new IllegalArgumentException("Invalid entity id for type " + type.name() + ": must be 1 to "
                    + ShardingSettings.MAX_ENTITY_ID_LENGTH + " characters");
        }
        Objects.requireNonNull(message, "message");
        return router.shardOf(entityId);
    }
}
