/** Micrometer observations of the messages a sharding node sends and handles, traced across nodes. */
@NullMarked
package dev.sharding.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
