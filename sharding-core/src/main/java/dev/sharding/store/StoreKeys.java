package dev.sharding.store;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** The keys the tables of a {@link JdbcShardingStore} can hold, checked before an operation is queued. */
final class StoreKeys {

    private StoreKeys() {}

    /**
     * Fails the future when the tables cannot hold a key: a name too long, or with the character U+0000.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param future the operation's future
     * @return true when the key is invalid and the future failed
     */
    static boolean invalid(String typeName, String entityId, CompletableFuture<?> future) {
        Objects.requireNonNull(typeName, "typeName");
        Objects.requireNonNull(entityId, "entityId");
        @Nullable String problem = null;
        if (typeName.length() > JdbcShardingStore.MAX_TYPE_NAME_LENGTH) {
            problem = "the type name is longer than " + JdbcShardingStore.MAX_TYPE_NAME_LENGTH + " characters";
        } else if (entityId.length() > JdbcShardingStore.MAX_ENTITY_ID_LENGTH) {
            problem = "the entity id is longer than " + JdbcShardingStore.MAX_ENTITY_ID_LENGTH + " characters";
        } else if (typeName.indexOf('\u0000') >= 0 || entityId.indexOf('\u0000') >= 0) {
            problem = "it contains the character U+0000, which PostgreSQL cannot store in text";
        }
        if (problem != null) {
            String shown = entityId.length() > 64 ? entityId.substring(0, 64) + "..." : entityId;
            future.completeExceptionally(new IllegalArgumentException(
                    "The JDBC sharding store cannot store [" + typeName + "/" + shown + "]: " + problem));
            return true;
        }
        return false;
    }

    /**
     * Fails the future when the tables cannot hold the key of one of some ids, as {@link #invalid(String, String,
     * CompletableFuture)} does.
     *
     * @param typeName the entity type
     * @param entityIds the entity ids
     * @param future the operation's future
     * @return true when a key is invalid and the future failed
     */
    static boolean invalid(String typeName, java.util.List<String> entityIds, CompletableFuture<?> future) {
        for (String id : entityIds) {
            if (invalid(typeName, id, future)) {
                return true;
            }
        }
        return false;
    }
}
