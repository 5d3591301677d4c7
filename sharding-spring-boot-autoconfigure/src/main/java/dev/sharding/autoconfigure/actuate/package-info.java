/**
 * Actuator support for a sharding node: the {@code sharding} endpoint and health indicator.
 */
@NullMarked
package dev.sharding.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
