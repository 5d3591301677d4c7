/**
 * The live dashboard page: static files served from the jar by one servlet, fed by the sharding actuator endpoint.
 */
@NullMarked
package dev.sharding.autoconfigure.dashboard;

import org.jspecify.annotations.NullMarked;
