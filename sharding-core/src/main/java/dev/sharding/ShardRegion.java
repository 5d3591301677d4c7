package dev.sharding;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The door to the entities of one type: messages sent here reach the entity with the given id wherever it lives in
 * the cluster, and start it if it is not alive.
 *
 * <p>Messages from one thread to one entity arrive in the order they were sent. Methods never block.
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
     * handling it is lost.
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
}
