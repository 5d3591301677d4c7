/**
 * The baseline of the HTTP workloads: the sample's account API as a plain Spring Boot MVC service on a database,
 * without sharding.
 */
@NullMarked
package dev.sharding.baseline;

import org.jspecify.annotations.NullMarked;
