/**
 * Internals of the sharding runtime; not an API, may change in any release.
 */
@NullMarked
package dev.sharding.internal.protocol;

import org.jspecify.annotations.NullMarked;
