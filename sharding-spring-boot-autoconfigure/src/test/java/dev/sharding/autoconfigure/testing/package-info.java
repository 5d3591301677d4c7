/**
 * The documented way to test entities, checked as a user would use it.
 */
@NullMarked
package dev.sharding.autoconfigure.testing;

import org.jspecify.annotations.NullMarked;
