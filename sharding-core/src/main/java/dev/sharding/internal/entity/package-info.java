/**
 * One entity's life on this node: its mailbox and lifecycle ({@link dev.sharding.internal.entity.EntityCell}), its
 * durable state, the ids of messages it already applied, its handlers, passivation and restart backoff, and the threads
 * that run it. Entity threads run this package's code. Internals; not an API.
 */
@NullMarked
package dev.sharding.internal.entity;

import org.jspecify.annotations.NullMarked;
