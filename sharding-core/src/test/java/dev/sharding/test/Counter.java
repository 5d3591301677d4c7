package dev.sharding.test;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;
import dev.sharding.spi.EntityFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test entity: keeps a total and a count, answers where it runs, and records how many instances of each id are
 * alive at once (to catch double activation).
 */
@ShardedEntity(type = "counter", numberOfShards = 20)
public class Counter {

    /** Live instances per "node/id"; an id alive twice at once anywhere in the JVM is a bug. */
    public static final ConcurrentHashMap<String, AtomicInteger> LIVE = new ConcurrentHashMap<>();

    private final EntityContext context;

    private long total;

    private long count;

    /**
     * Creates the entity.
     *
     * @param context its context
     */
    public Counter(EntityContext context) {
        this.context = context;
        LIVE.computeIfAbsent(context.entityId(), k -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * The entity type with a plain factory.
     *
     * @return the type
     */
    public static EntityType<Counter> type() {
        return EntityType.of(Counter.class, new EntityFactory<>() {
            @Override
            public Counter create(dev.sharding.EntityContext ctx) {
                return new Counter(ctx);
            }

            @Override
            public void destroy(Counter entity) {
                LIVE.get(entity.context.entityId()).decrementAndGet();
            }
        });
    }

    /** Adds to the total. */
    @EntityHandler
    public Total on(Add add) {
        total += add.amount();
        count++;
        return new Total(context.entityId(), total, count, context.nodeName());
    }

    /** Reads the total. */
    @EntityHandler
    public Total on(Get get) {
        return new Total(context.entityId(), total, count, context.nodeName());
    }

    /** Fails on purpose. */
    @EntityHandler
    public Total on(Fail fail) {
        throw new IllegalStateException(fail.reason());
    }

    /** Replies later, from another thread. */
    @EntityHandler
    public CompletionStage<Total> on(AddLater add) {
        return CompletableFuture.supplyAsync(
                () -> {
                    total += add.amount();
                    count++;
                    return new Total(context.entityId(), total, count, context.nodeName());
                },
                CompletableFuture.delayedExecutor(add.delayMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
    }

    /** Adds an amount. @param amount the amount */
    public record Add(long amount) {}

    /** Adds an amount after a delay, asynchronously. @param amount the amount @param delayMillis the delay */
    public record AddLater(long amount, long delayMillis) {}

    /** Asks for the total. */
    public record Get() {}

    /** Makes the handler throw. @param reason the exception message */
    public record Fail(String reason) {}

    /** The reply. @param id entity id @param total total @param count messages @param node where it runs */
    public record Total(String id, long total, long count, String node) {}
}
