/**
 * The entity of the scale-out workload W8, kept out of the bench application's package so that only the nodes that
 * import it run it.
 */
@NullMarked
package dev.sharding.scale;

import org.jspecify.annotations.NullMarked;
