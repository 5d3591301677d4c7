package dev.sharding.internal.entity;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.IdempotencyKeyReusedException;
import dev.sharding.MessageRejectedException;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.FailureKind;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a live entity handles one message, on the thread draining its mailbox: the trace's side of the entity when the
 * message carries one, a message id applied lately answered with its recorded reply instead, the handler invoked, its
 * {@link CompletionStage} awaited without blocking, the state written through ({@link DurableEntityState#afterHandler}),
 * and the outcome given to the message's sink ({@link #answer}).
 */
final class MessageHandling {

    private static final Logger log = LoggerFactory.getLogger(MessageHandling.class);

    private MessageHandling() {}

    /**
     * Hands one message to the entity's handler, unless the entity applied its id lately, and its outcome to the sink
     * (with a trace, the handler runs in the trace's scope).
     *
     * @return false when the mailbox must wait for a completion
     */
    static boolean handle(EntityCell cell, Object entity, Object delivered, ReplySink sink) {
        if (delivered instanceof TracedMessage traced) {
            TracedSink tracedSink =
                    TracedSink.start(cell.services().tracing(), cell.typeName(), cell.entityId(), traced, sink);
            return handle(cell, entity, traced.message(), tracedSink != null ? tracedSink : sink, tracedSink);
        }
        return handle(cell, entity, delivered, sink, null);
    }

    private static boolean handle(
            EntityCell cell, Object entity, Object delivered, ReplySink sink, @Nullable TracedSink traced) {
        Object message = delivered;
        String messageId = null;
        if (message instanceof IdentifiedMessage identified) {
            messageId = identified.messageId();
            message = identified.message();
            if (repeated(cell, messageId, message, sink)) {
                return true;
            }
        }
        EntityHandlers handlers = cell.services().handlers();
        Object result;
        try {
            result = traced == null ? handlers.invoke(entity, message) : traced.invoke(handlers, entity, message);
        } catch (UnhandledMessageException e) {
            if (sink.isTell()) {
                log.warn("Dropped a tell: {}", e.getMessage());
            }
            sink.fail(FailureKind.UNHANDLED, e.getClass().getName(), e.getMessage());
            return true;
        } catch (Throwable t) {
            rethrowFatal(t);
            return cell.afterHandler(sink, null, t, messageId);
        }
        if (result instanceof CompletionStage<?> stage) {
            CompletableFuture<?> f = stage.toCompletableFuture();
            if (!f.isDone()) {
                String id = messageId;
                f.whenComplete((v, t) -> {
                    if (cell.afterHandler(sink, v, t == null ? null : DurableEntityState.unwrap(t), id)) {
                        cell.resumeAfterCompletion();
                    }
                });
                return false;
            }
            try {
                return cell.afterHandler(sink, f.join(), null, messageId);
            } catch (Throwable t) {
                return cell.afterHandler(sink, null, DurableEntityState.unwrap(t), messageId);
            }
        }
        return cell.afterHandler(sink, result, null, messageId);
    }

    /**
     * A message with an id: when the entity applied that id lately, answers with the recorded reply and returns true
     * (the handler does not run again).
     */
    private static boolean repeated(EntityCell cell, String messageId, Object message, ReplySink sink) {
        if (cell.services().type().stateType() == null) {
            sink.fail(
                    FailureKind.REJECTED,
                    MessageRejectedException.class.getName(),
                    "Entity type " + cell.typeName() + " has no durable state, so it cannot apply a message id once");
            return true;
        }
        DurableEntityState durable = cell.durable();
        AppliedIds.Recorded recorded;
        try {
            recorded = durable.recordedReply(messageId, durable.fingerprint(message));
        } catch (RuntimeException e) {
            sink.fail(
                    FailureKind.ENTITY_FAILED,
                    e.getClass().getName(),
                    "the recorded reply to message " + messageId + " cannot be decoded: " + e.getMessage());
            return true;
        }
        if (recorded instanceof AppliedIds.NotApplied) {
            return false;
        }
        if (recorded instanceof AppliedIds.Replied replied) {
            log.debug(
                    "Entity [{}/{}] applied message {} before; answering with the recorded reply",
                    cell.typeName(),
                    cell.entityId(),
                    messageId);
            cell.complete(sink, replied.value(), null);
            return true;
        }
        sink.fail(
                FailureKind.KEY_REUSED,
                IdempotencyKeyReusedException.class.getName(),
                "Message id " + messageId + " was applied lately by [" + cell.typeName() + "/" + cell.entityId()
                        + "] to another message (a " + message.getClass().getName()
                        + " that encodes differently): a message id stands for one message; nothing was applied");
        return true;
    }

    /**
     * Gives a handled message's outcome to its sink: the reply, unless the node stopped serving while the handler ran
     * (a reply now could show state another node has changed), or the failure.
     */
    static void answer(EntityCell cell, ReplySink sink, @Nullable Object value, @Nullable Throwable failure) {
        if (failure == null) {
            if (!sink.isTell() && !cell.region().serving()) {
                sink.fail(
                        FailureKind.PARTITIONED,
                        ClusterPartitionedException.class.getName(),
                        cell.region().notServingReason() + "; the message may have had an effect");
                return;
            }
            sink.reply(value);
            return;
        }
        if (sink.isTell()) {
            log.warn("Entity [{}/{}] failed handling a tell", cell.typeName(), cell.entityId(), failure);
        } else if (log.isDebugEnabled()) {
            log.debug("Entity [{}/{}] failed handling an ask", cell.typeName(), cell.entityId(), failure);
        }
        if (sink instanceof TracedSink traced) {
            traced.failedWith(failure);
        }
        sink.fail(FailureKind.ENTITY_FAILED, failure.getClass().getName(), failure.getMessage());
    }

    /** Lets errors of the virtual machine through; every other failure of entity code is the message's. */
    static void rethrowFatal(Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e;
        }
    }
}
