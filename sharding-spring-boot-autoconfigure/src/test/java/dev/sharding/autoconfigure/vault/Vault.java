package dev.sharding.autoconfigure.vault;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;

/**
 * An entity with durable state injected by its generic type, and an initial value of its own.
 */
@ShardedEntity(numberOfShards = 10)
public class Vault {

    private final EntityContext context;

    private final EntityState<Contents> contents;

    /**
     * Creates the entity.
     *
     * @param context its context
     * @param contents its durable state
     */
    public Vault(EntityContext context, EntityState<Contents> contents) {
        this.context = context;
        this.contents = contents;
    }

    /** The contents of a vault never seen: one coin. @return the initial contents */
    @InitialState
    static Contents empty() {
        return new Contents(1);
    }

    /** Adds coins. */
    @EntityHandler
    public Reply on(Put put) {
        contents.update(c -> new Contents(c.coins() + put.coins()));
        return new Reply(contents.get().coins(), context.nodeName());
    }

    /** Reads the contents. */
    @EntityHandler
    public Reply on(Look look) {
        return new Reply(contents.get().coins(), context.nodeName());
    }

    /** The stored state. @param coins how many coins */
    public record Contents(long coins) {}

    /** Adds coins. @param coins how many */
    public record Put(long coins) {}

    /** Reads the contents. */
    public record Look() {}

    /** The answer. @param coins how many coins @param node where the vault runs */
    public record Reply(long coins, String node) {}
}
