/** Micrometer meters of the sharding node. */
@NullMarked
package dev.sharding.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
