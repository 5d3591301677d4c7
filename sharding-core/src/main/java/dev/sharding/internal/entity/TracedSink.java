package dev.sharding.internal.entity;

import dev.sharding.internal.ask.PendingAsk;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.MessageTracing;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entity's side of a traced message ({@link TracedMessage}): the {@link MessageTracing.Handling} started on the
 * entity's thread as the message reaches its handler, a scope open on that thread while the handler runs
 * ({@link #invoke}), and the trace ended with the outcome as it goes to the real sink (the caller's future, a
 * {@code Reply} or {@code Failure} frame, or nothing for a tell), wherever that happens: on the entity's thread, or
 * on the thread that completed the handler's {@code CompletionStage} or its state write.
 */
final class TracedSink implements ReplySink {

    private static final Logger log = LoggerFactory.getLogger(TracedSink.class);

    private final ReplySink target;

    private final MessageTracing.Handling handling;

    private final String typeName;

    private final String entityId;

    /** What the handler (or the state write) threw, when the entity knows it; set before {@link #fail}. */
    private volatile @Nullable Throwable cause;

    private TracedSink(ReplySink target, MessageTracing.Handling handling, String typeName, String entityId) {
        this.target = target;
        this.handling = handling;
        this.typeName = typeName;
        this.entityId = entityId;
    }

    /**
     * Starts the entity's side of a traced message, on the entity's thread.
     *
     * @return the sink to give the outcome to, or {@code null} when the node does not trace this message
     */
    static @Nullable TracedSink start(
            @Nullable MessageTracing tracing, String typeName, String entityId, TracedMessage traced, ReplySink sink) {
        if (tracing == null) {
            return null;
        }
        Object message =
                traced.message() instanceof IdentifiedMessage identified ? identified.message() : traced.message();
        MessageTracing.Handling handling;
        try {
            handling = tracing.startHandling(typeName, entityId, message, traced.headers(), !sink.isTell());
        } catch (RuntimeException e) {
            log.warn("Tracing the handling of a message by [{}/{}] failed", typeName, entityId, e);
            return null;
        }
        return handling == null ? null : new TracedSink(sink, handling, typeName, entityId);
    }

    /** Runs the handler with the trace current on this thread. */
    @Nullable
    Object invoke(EntityHandlers handlers, Object entity, Object message) throws Throwable {
        MessageTracing.Scope scope;
        try {
            scope = handling.openScope();
        } catch (RuntimeException e) {
            log.warn("Opening the trace's scope for [{}/{}] failed", typeName, entityId, e);
            return handlers.invoke(entity, message);
        }
        try {
            return handlers.invoke(entity, message);
        } finally {
            try {
                scope.close();
            } catch (RuntimeException e) {
                log.warn("Closing the trace's scope for [{}/{}] failed", typeName, entityId, e);
            }
        }
    }

    /** What made the message fail, for the trace: the {@link #fail} that follows carries only its name and text. */
    void failedWith(Throwable failure) {
        cause = failure;
    }

    @Override
    public void reply(@Nullable Object value) {
        end(AskOutcome.SUCCESS, null);
        target.reply(value);
    }

    @Override
    public void fail(FailureKind kind, String className, @Nullable String message) {
        Throwable error = cause;
        end(
                PendingAsk.outcomeOf(kind),
                error != null ? error : PendingAsk.exceptionOf(kind, typeName, entityId, className, message));
        target.fail(kind, className, message);
    }

    @Override
    public boolean isTell() {
        return target.isTell();
    }

    private void end(AskOutcome outcome, @Nullable Throwable error) {
        try {
            handling.end(outcome, error);
        } catch (RuntimeException e) {
            log.warn("Ending the trace of a message to [{}/{}] failed", typeName, entityId, e);
        }
    }
}
