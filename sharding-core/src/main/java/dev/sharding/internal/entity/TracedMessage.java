package dev.sharding.internal.entity;

import dev.sharding.spi.MessageTracing;
import java.util.Map;

/**
 * A message that carries headers from its sender to its entity: the trace context of a traced message
 * ({@link MessageTracing}). Like {@link IdentifiedMessage}, which it may wrap, it exists only inside the node, from the
 * region to the entity's mailbox (through the slot's buffer when the shard's home is not known yet); between nodes
 * the headers travel in the envelope beside the encoded message. It is made only when the node traces and the tracer
 * gave headers, so an untraced message is routed as the caller's own object.
 *
 * <p>The region starts the sender's side of a trace; {@link TracedSink} is the entity's side.
 *
 * @param headers the headers, unmodifiable and within the envelope's limits
 * @param message the message, possibly an {@link IdentifiedMessage}
 */
public record TracedMessage(Map<String, String> headers, Object message) {}
