package dev.sharding.spi;

/**
 * Maps an entity id to its shard: entities of one shard live together, move together and are hosted by the same node.
 *
 * <p>The default, {@link HashCode}, spreads ids evenly. A function of one's own gives locality: for example all of a
 * customer's entities (ids {@code "<customer>:<order>"}) in one shard, by hashing only the part before the colon.
 *
 * <p>Like the number of shards, the function must be the same on every node and must not change while the cluster
 * runs, or in a rolling update: a node that receives a message for a shard the id does not map to under its own
 * function refuses it. It must be fast, must not block, and must return the same shard for the same id every time,
 * on every JVM (so not {@code Object.hashCode} of anything but strings, enums' names or numbers). A result outside
 * {@code [0, numberOfShards)} or an exception fails the send with an {@link IllegalArgumentException} and changes
 * nothing.
 *
 * <p>Set it with {@code @ShardedEntity(shardIdFunction = ...)} (in a Spring application, a bean of that class is
 * used if there is one, else an instance made with its no-argument constructor) or
 * {@code EntityType.withShardIdFunction}.
 */
@FunctionalInterface
public interface ShardIdFunction {

    /**
     * The shard of an entity id.
     *
     * @param entityId the id, 1 to 1,024 characters
     * @param numberOfShards the type's number of shards, at least 1
     * @return the shard, from 0 to {@code numberOfShards - 1}
     */
    int shardId(String entityId, int numberOfShards);

    /**
     * The default: {@code Math.floorMod(entityId.hashCode(), numberOfShards)}. {@link String#hashCode()} is defined
     * by the Java platform ({@code s[0]*31^(n-1) + ... + s[n-1]} over the UTF-16 chars, in {@code int} arithmetic),
     * so an id maps to the same shard on every JVM, version, operating system, locale and file encoding.
     */
    final class HashCode implements ShardIdFunction {

        /** The one instance. */
        public static final HashCode INSTANCE = new HashCode();

        /** For {@code @ShardedEntity(shardIdFunction = HashCode.class)}, the default; use {@link #INSTANCE}. */
        public HashCode() {}

        @Override
        public int shardId(String entityId, int numberOfShards) {
            return Math.floorMod(entityId.hashCode(), numberOfShards);
        }

        @Override
        public String toString() {
            return "floorMod(id.hashCode(), numberOfShards)";
        }
    }
}
