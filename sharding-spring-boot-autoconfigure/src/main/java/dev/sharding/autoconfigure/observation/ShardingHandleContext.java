package dev.sharding.autoconfigure.observation;

import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code sharding.handle} observation: an entity handling a message that arrived with headers, and
 * once the reply or failure went back, the outcome. Its carrier is the headers the sender's observation gave; a
 * propagating tracing handler continues the sender's trace from them. The handling of an ask is a
 * {@link Kind#SERVER}, of a tell a {@link Kind#CONSUMER}.
 */
public final class ShardingHandleContext extends ReceiverContext<Map<String, String>> {

    private final String typeName;

    private final String entityId;

    private final boolean ask;

    private volatile @Nullable AskOutcome outcome;

    ShardingHandleContext(String typeName, String entityId, boolean ask, Map<String, String> headers) {
        super(ShardingHandleContext::get, ask ? Kind.SERVER : Kind.CONSUMER);
        this.typeName = typeName;
        this.entityId = entityId;
        this.ask = ask;
        setCarrier(headers);
    }

    private static @Nullable String get(@Nullable Map<String, String> carrier, String key) {
        return carrier == null ? null : carrier.get(key);
    }

    /** {@return the entity type} */
    public String getTypeName() {
        return this.typeName;
    }

    /** {@return the entity id} */
    public String getEntityId() {
        return this.entityId;
    }

    /** {@return true when the sender waits for a reply, false for a tell} */
    public boolean isAsk() {
        return this.ask;
    }

    /** {@return how the handling ended, or {@code null} while it has not} */
    public @Nullable AskOutcome getOutcome() {
        return this.outcome;
    }

    void ended(AskOutcome outcome) {
        this.outcome = outcome;
    }
}
