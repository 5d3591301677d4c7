package dev.sharding.autoconfigure.observation;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * An entity that says where it runs and which span was current in its handler, with the application's tracer
 * injected as any other bean.
 */
@ShardedEntity(numberOfShards = 10)
public class Echo {

    /** Replies held back until a test lets them go, per entity id. */
    static final Map<String, CompletableFuture<String>> HELD = new ConcurrentHashMap<>();

    private final EntityContext context;

    private final Tracer tracer;

    /**
     * Creates the entity.
     *
     * @param context its context
     * @param tracer the application's tracer
     */
    public Echo(EntityContext context, Tracer tracer) {
        this.context = context;
        this.tracer = tracer;
    }

    /** Answers. */
    @EntityHandler
    public Pong on(Ping ping) {
        return pong();
    }

    /** Throws. */
    @EntityHandler
    public Pong on(Fail fail) {
        throw new IllegalStateException("failed on purpose");
    }

    /** Answers once the test lets it. */
    @EntityHandler
    public CompletionStage<Pong> on(Stall stall) {
        Pong now = pong();
        return HELD.computeIfAbsent(this.context.entityId(), id -> new CompletableFuture<>())
                .thenApply(released -> now);
    }

    private Pong pong() {
        Span span = this.tracer.currentSpan();
        return new Pong(
                this.context.nodeName(),
                span == null ? null : span.context().traceId(),
                span == null ? null : span.context().spanId());
    }

    /** Asks for an answer. */
    public record Ping() {}

    /** Makes the handler throw. */
    public record Fail() {}

    /** Makes the answer wait. */
    public record Stall() {}

    /**
     * The answer.
     *
     * @param node where the entity runs
     * @param traceId the trace current in its handler, if any
     * @param spanId the span current in its handler, if any
     */
    public record Pong(
            String node, @Nullable String traceId, @Nullable String spanId) {}
}
