package dev.sharding;

/**
 * What an entity knows about itself: its id, its shard and its type. Given to an entity when it is created.
 */
public interface EntityContext {

    /**
     * The entity type name.
     *
     * @return the type name
     */
    String typeName();

    /**
     * The entity id.
     *
     * @return the id
     */
    String entityId();

    /**
     * The shard the entity belongs to.
     *
     * @return the shard id, from 0 to the type's number of shards minus one
     */
    int shardId();

    /**
     * The name of the node the entity runs on.
     *
     * @return the node name
     */
    String nodeName();
}
