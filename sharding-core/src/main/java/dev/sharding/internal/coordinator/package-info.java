/**
 * The shard coordinator's decisions: where each shard lives and when it moves. {@link
 * dev.sharding.internal.coordinator.Coordinator} takes events with their time and returns effects, and never sends,
 * reads the store or reads a clock itself; the node carries the effects out. Internals; not an API.
 */
@NullMarked
package dev.sharding.internal.coordinator;

import org.jspecify.annotations.NullMarked;
