/**
 * Entity classes with the mistakes a new user makes, each registered on its own by the tests of startup failures.
 */
@NullMarked
package dev.sharding.autoconfigure.mistakes;

import org.jspecify.annotations.NullMarked;
