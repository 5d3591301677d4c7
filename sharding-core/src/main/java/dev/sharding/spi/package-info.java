/**
 * Service provider interfaces: how shards are allocated, how messages are encoded, how entity instances are made,
 * where state is stored, where metrics go and how messages are traced.
 */
@NullMarked
package dev.sharding.spi;

import org.jspecify.annotations.NullMarked;
