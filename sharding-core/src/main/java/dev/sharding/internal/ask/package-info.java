/**
 * Asks in flight: the caller's future, its deadline and the one place that completes it ({@link
 * dev.sharding.internal.ask.PendingAsk}), the registry the node's tick sweeps, and where a reply is sent ({@link
 * dev.sharding.internal.ask.ReplySink}). Knows nothing of regions or entities. Internals; not an API.
 */
@NullMarked
package dev.sharding.internal.ask;

import org.jspecify.annotations.NullMarked;
