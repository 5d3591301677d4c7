package dev.sharding;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The door to the entities of one type: messages sent here reach the entity with the given id wherever it lives in
 * the cluster, and start it if it is not alive.
 *
 * <p>Messages from one thread to one entity arrive in the order they were sent. Methods never block.
 *
 * <p>The stages a caller chains on an ask's future without an executor ({@code thenApply}, {@code whenComplete},
 * {@code exceptionally}...) run on the node's entity executor, or on the executor given to
 * {@link ShardingNode.Builder#callbackExecutor}; never on the node's own threads (its control thread, the store's
 * threads, the transport's threads), whichever of them decided the outcome. A stage chained on a future already
 * complete runs on the caller's thread, as always with {@link CompletableFuture}.
 *
 * @param <T> the entity class
 */
public interface ShardRegion<T> {

    /**
     * The entity type name.
     *
     * @return the type name
     */
    String typeName();

    /**
     * Sends a message without waiting for a reply. Delivery is at most once: a message to a node that crashes before
     * handling it is lost, and one that finds its entity's mailbox full ({@code mailbox-size} messages waiting) is
     * dropped and counted.
     *
     * @param entityId the entity id (not empty, at most {@link ShardingSettings#MAX_ENTITY_ID_LENGTH} characters)
     * @param message the message, an instance of a type the entity declares
     * @throws IllegalArgumentException if the id or the message is invalid
     * @throws BufferFullException if the message had to wait for its shard's home and the buffer is full
     */
    void tell(String entityId, Object message);

    /**
     * Sends a message and returns the entity's reply, failing after the default ask timeout.
     *
     * @param entityId the entity id
     * @param message the message
     * @param replyType the type of the reply
     * @param <R> the type of the reply
     * @return the reply, or a failure: {@link AskTimeoutException}, {@link EntityException},
     *     {@link UnhandledMessageException}, {@link EntityUnreachableException}, {@link MessageRejectedException},
     *     {@link BufferFullException}
     */
    <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType);

    /**
     * Sends a message and returns the entity's reply, failing after the given timeout.
     *
     * @param entityId the entity id
     * @param message the message
     * @param replyType the type of the reply
     * @param timeout how long to wait for the reply
     * @param <R> the type of the reply
     * @return the reply or a failure, as for {@link #ask(String, Object, Class)}
     */
    <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType, Duration timeout);

    /**
     * Sends a message with an id that makes retries safe, failing after the default ask timeout; see
     * {@link #ask(String, Object, Class, Duration, String)}.
     *
     * @param entityId the entity id
     * @param message the message
     * @param replyType the type of the reply
     * @param messageId the message's id
     * @param <R> the type of the reply
     * @return the reply or a failure, as for {@link #ask(String, Object, Class)}
     * @throws IllegalArgumentException if the entity id or message id is invalid, or the type has no durable state
     */
    <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType, String messageId);

    /**
     * Sends a message with an id that makes retries safe: the entity applies a message id once. The first message
     * with the id runs the handler; its state change and the id with the reply are stored in one transaction. A
     * message with an id the entity applied lately gets the recorded reply again, without running the handler,
     * whether the entity stayed, passivated, moved to another node, or its node crashed in between. So an ask that
     * timed out, or failed because its node went away, can be sent again with the same id.
     *
     * <p>Only for entity types with durable state ({@link EntityType#withState}). Each entity keeps the ids of its
     * last messages, by count and age ({@code sharding.entities.<type>.applied-messages.*}); an id retried after it
     * left that window is applied again. A handler that failed recorded nothing: a retry runs it again. The reply is
     * recorded in the codec's encoding, so its type must be one the codec knows.
     *
     * @param entityId the entity id
     * @param message the message
     * @param replyType the type of the reply
     * @param timeout how long to wait for the reply
     * @param messageId the message's id, unique per entity for the window's time (for example an idempotency key);
     *     1 to {@link ShardingSettings#MAX_MESSAGE_ID_LENGTH} characters
     * @param <R> the type of the reply
     * @return the reply or a failure, as for {@link #ask(String, Object, Class)}
     * @throws IllegalArgumentException if the entity id or message id is invalid, or the type has no durable state
     */
    <R> CompletableFuture<R> ask(
            String entityId, Object message, Class<R> replyType, Duration timeout, String messageId);
}
