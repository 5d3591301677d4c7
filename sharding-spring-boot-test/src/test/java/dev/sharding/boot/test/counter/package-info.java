/**
 * A small application under test: one entity type, with a message that cannot cross the network intact.
 */
@NullMarked
package dev.sharding.boot.test.counter;

import org.jspecify.annotations.NullMarked;
