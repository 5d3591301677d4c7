/**
 * Service provider interfaces: how shards are allocated, how messages are encoded and how entity instances are made.
 */
@NullMarked
package dev.sharding.spi;

import org.jspecify.annotations.NullMarked;
