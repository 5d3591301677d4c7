package dev.sharding.internal.region;

import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.entity.TracedMessage;
import dev.sharding.internal.protocol.EnvelopeHeaders;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.MessageTracing;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sender's side of a traced message ({@link TracedMessage}): {@link Region#ask} and {@link Region#tell} call it
 * only when the node traces; {@link dev.sharding.internal.entity.TracedSink} is the entity's side.
 */
final class TracedSends {

    private TracedSends() {}

    private static final Logger log = LoggerFactory.getLogger(TracedSends.class);

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
