package dev.sharding.internal.region;

import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.entity.IdentifiedMessage;
import dev.sharding.internal.protocol.EnvelopeHeaders;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.MessageTracing;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A message that carries headers from its sender to its entity: the trace context of a traced message
 * ({@link MessageTracing}). Like {@link IdentifiedMessage}, which it may wrap, it exists only inside the node, from the
 * region to the entity's mailbox (through the slot's buffer when the shard's home is not known yet); between nodes
 * the headers travel in the envelope beside the encoded message. It is made only when the node traces and the tracer
 * gave headers, so an untraced message is routed as the caller's own object.
 *
 * <p>The static methods are the sender's side of a trace ({@link Region#ask} and {@link Region#tell} call them only
 * when the node traces); {@link TracedSink} is the entity's side.
 *
 * @param headers the headers, unmodifiable and within the envelope's limits
 * @param message the message, possibly an {@link IdentifiedMessage}
 */
public record TracedMessage(Map<String, String> headers, Object message) {

    private static final Logger log = LoggerFactory.getLogger(TracedMessage.class);

    /**
     * Starts the trace of an ask on the caller's thread, ended when the ask's future completes, by whatever completes
     * it first.
     *
     * @param routed the message as the region routes it (the caller's message, or it with its message id)
     * @return what to route: {@code routed}, with the trace's headers when there are any
     */
    static Object ask(
            MessageTracing tracing,
            String typeName,
            String entityId,
            Object message,
            Object routed,
            PendingAsk<?> ask) {
        MessageTracing.Sending sending;
        try {
            sending = tracing.startAsk(typeName, entityId, message);
        } catch (RuntimeException e) {
            log.warn("Tracing an ask to [{}/{}] failed; it goes untraced", typeName, entityId, e);
            return routed;
        }
        if (sending == null) {
            return routed;
        }
        ask.future.whenComplete((value, error) ->
                end(sending, error == null ? AskOutcome.SUCCESS : PendingAsk.outcomeOf(error), ask.remote, error));
        return withHeaders(sending, routed);
    }

    /**
     * Sends a tell through the router with its trace: started on the caller's thread, ended once the tell is handed
     * on (sent, or buffered) or refused.
     */
    static void tell(
            MessageTracing tracing,
            ShardRouter router,
            ShardSlot slot,
            String typeName,
            String entityId,
            Object message) {
        MessageTracing.Sending sending = null;
        try {
            sending = tracing.startTell(typeName, entityId, message);
        } catch (RuntimeException e) {
            log.warn("Tracing a tell to [{}/{}] failed; it goes untraced", typeName, entityId, e);
        }
        if (sending == null) {
            router.route(slot, entityId, message, null);
            return;
        }
        try {
            router.route(slot, entityId, withHeaders(sending, message), null);
        } catch (RuntimeException e) {
            end(sending, PendingAsk.outcomeOf(e), false, e);
            throw e;
        }
        end(sending, AskOutcome.SUCCESS, false, null);
    }

    private static Object withHeaders(MessageTracing.Sending sending, Object message) {
        Map<String, String> headers;
        try {
            headers = EnvelopeHeaders.sendable(sending.headers());
        } catch (RuntimeException e) {
            log.warn("Reading the headers of a traced message failed; it goes without them", e);
            return message;
        }
        return headers == null ? message : new TracedMessage(headers, message);
    }

    private static void end(
            MessageTracing.Sending sending, AskOutcome outcome, boolean remote, @Nullable Throwable error) {
        try {
            sending.end(outcome, remote, error);
        } catch (RuntimeException e) {
            log.warn("Ending the trace of a message failed", e);
        }
    }
}
