package dev.sharding.autoconfigure;

import dev.sharding.ShardingNode;

/**
 * Changes the builder of the auto-configured {@link ShardingNode} before it is built: for example to set an
 * allocation strategy, a codec, an entity executor or an executor for the callbacks on asks' futures
 * ({@code builder -> builder.callbackExecutor(executor)}), or to add entity types that are not beans. Every bean of this type is
 * applied, in {@link org.springframework.core.annotation.Order} order, after the entity types, message types and
 * channel customizers have been added.
 */
@FunctionalInterface
public interface ShardingNodeCustomizer {

    /**
     * Changes the builder.
     *
     * @param builder the builder of the node
     */
    void customize(ShardingNode.Builder builder);
}
