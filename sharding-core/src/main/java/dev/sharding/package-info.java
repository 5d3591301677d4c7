/**
 * The public API of cluster sharding: entities, regions, settings and the failures a caller can see.
 */
@NullMarked
package dev.sharding;

import org.jspecify.annotations.NullMarked;
