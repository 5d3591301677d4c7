package dev.sharding.internal.entity;

import dev.sharding.internal.ask.ReplySink;

/**
 * One message, or a {@link Signal} of the runtime, for an entity's mailbox, and where its outcome goes.
 *
 * @param message the message as delivered (possibly wrapped with its message id or its trace's headers), or a signal
 * @param sink where the outcome goes
 */
public record Delivery(Object message, ReplySink sink) {}
