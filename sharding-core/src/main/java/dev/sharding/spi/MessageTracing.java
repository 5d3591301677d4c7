package dev.sharding.spi;

import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Follows a message from its sender to the entity that handles it, for a tracing library: the Spring Boot starter
 * binds it to Micrometer's Observation API when the application has an {@code ObservationRegistry}. A trace that
 * starts on the caller's node continues on the entity's node through <em>headers</em>, a few short strings that
 * travel beside the message (in the envelope between nodes, in the mailbox within one).
 *
 * <ul>
 * <li><b>Sender's side</b>: {@link #startAsk} (or {@link #startTell}) on the caller's thread, as the message is sent;
 * the {@link Sending} it returns gives the headers to carry, read once right after, and is
 * {@linkplain Sending#end ended} once: for an ask with its outcome, on the thread that completes the ask's future
 * (before or after the caller sees it), for a tell as soon as it has been handed on.</li>
 * <li><b>Entity's side</b>: {@link #startHandling} on the entity's thread, for a message that arrived with headers
 * and is about to reach its handler; the {@link Handling} has a {@linkplain Handling#openScope scope} open on that
 * thread while the handler runs, and is {@linkplain Handling#end ended} once with the outcome, when the reply (or
 * the failure) goes back, which may be on another thread when the handler's {@code CompletionStage} or its state
 * write completes later.</li>
 * </ul>
 *
 * <p>Called on hot paths from many threads: implementations must be thread-safe and must not block. With
 * {@link #NONE} (the default) the node allocates nothing and looks nothing up per message. A method that returns
 * {@code null} traces nothing for that message; headers it returns that break the limits below are left out (and
 * logged), so that a frame never carries what its receiver would refuse.
 *
 * <p>Set it with {@code ShardingNode.Builder.tracing}.
 */
public interface MessageTracing {

    /** Traces nothing. */
    MessageTracing NONE = new MessageTracing() {};

    /** The most headers one message carries. */
    int MAX_HEADERS = 16;

    /** The longest header name, in UTF-8 bytes (at least one). */
    int MAX_KEY_BYTES = 64;

    /** The longest header value, in UTF-8 bytes. */
    int MAX_VALUE_BYTES = 1024;

    /**
     * An ask is being sent, on the caller's thread.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param message the message, as the caller gave it
     * @return the ask's trace, or {@code null} to trace nothing
     */
    default @Nullable Sending startAsk(String typeName, String entityId, Object message) {
        return null;
    }

    /**
     * A tell is being sent, on the caller's thread.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param message the message, as the caller gave it
     * @return the tell's trace, or {@code null} to trace nothing
     */
    default @Nullable Sending startTell(String typeName, String entityId, Object message) {
        return null;
    }

    /**
     * A message that arrived with headers is about to reach its entity's handler, on the entity's thread.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param message the message
     * @param headers the headers its sender's {@link Sending} gave, unmodifiable
     * @param ask whether the sender waits for a reply
     * @return the handling's trace, or {@code null} to trace nothing
     */
    default @Nullable Handling startHandling(
            String typeName, String entityId, Object message, Map<String, String> headers, boolean ask) {
        return null;
    }

    /** The sender's side of one message. */
    interface Sending {

        /**
         * The headers to carry to the entity, read once, right after the trace started.
         *
         * @return the headers; empty to carry none
         */
        Map<String, String> headers();

        /**
         * The message's trace ends here. Called once.
         *
         * @param outcome how the ask ended; {@link AskOutcome#SUCCESS} for a tell that was handed on (sent, or
         *     buffered until its shard's home is known)
         * @param remote for an ask, whether it was last sent to another node; false for a tell
         * @param error why it failed, or {@code null}
         */
        void end(AskOutcome outcome, boolean remote, @Nullable Throwable error);
    }

    /** The entity's side of one message. */
    interface Handling {

        /**
         * Makes the trace current on this thread while the handler runs; the scope is closed on this thread, before
         * {@link #end}.
         *
         * @return the scope
         */
        Scope openScope();

        /**
         * The handling ends: the reply or the failure goes back (for a tell, it was handled or failed). Called once.
         *
         * @param outcome {@link AskOutcome#SUCCESS}, {@link AskOutcome#FAILED} when the handler threw or the state
         *     write failed, {@link AskOutcome#REJECTED} when the message or reply was refused, or
         *     {@link AskOutcome#UNREACHABLE} when the node stopped serving the entity meanwhile
         * @param error why it failed, or {@code null}
         */
        void end(AskOutcome outcome, @Nullable Throwable error);
    }

    /** A trace made current on a thread; closing it restores what was current before. */
    @FunctionalInterface
    interface Scope extends AutoCloseable {

        /** Closes the scope, on the thread that opened it. */
        @Override
        void close();
    }
}
