/**
 * Spring Boot auto-configuration of a sharding node: {@code sharding.*} properties, {@code @ShardedEntity} classes as
 * prototype beans, {@code ShardRegion<T>} beans and the node's lifecycle.
 */
@NullMarked
package dev.sharding.autoconfigure;

import org.jspecify.annotations.NullMarked;
