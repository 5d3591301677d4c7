/**
 * Internals of the sharding runtime; not an API, may change in any release.
 */
@NullMarked
package dev.sharding.internal.codec;

import org.jspecify.annotations.NullMarked;
