package dev.sharding.internal.entity;

/**
 * A message the sender gave an id, so that the entity applies it once however often it is retried
 * ({@link AppliedMessages}). Wraps the message only inside the node, from the region to the entity's mailbox: on the
 * wire the id travels in the envelope beside the encoded message.
 *
 * @param messageId the id
 * @param message the message
 */
public record IdentifiedMessage(String messageId, Object message) {}
