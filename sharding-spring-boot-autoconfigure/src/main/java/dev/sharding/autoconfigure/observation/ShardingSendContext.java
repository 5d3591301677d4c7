package dev.sharding.autoconfigure.observation;

import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The context of a {@code sharding.ask} or {@code sharding.tell} observation: the message's entity, and once it ended,
 * its outcome. Its carrier is the map of headers the message carries to its entity; a propagating tracing handler puts
 * the trace context there when the observation starts. An ask is a {@link Kind#CLIENT} (it waits for a reply), a tell
 * a {@link Kind#PRODUCER}.
 */
public final class ShardingSendContext extends SenderContext<Map<String, String>> {

    private final String typeName;

    private final String entityId;

    private final boolean ask;

    private volatile @Nullable AskOutcome outcome;

    private volatile boolean remote;

    ShardingSendContext(String typeName, String entityId, boolean ask) {
        super(ShardingSendContext::put, ask ? Kind.CLIENT : Kind.PRODUCER);
        this.typeName = typeName;
        this.entityId = entityId;
        this.ask = ask;
        // in the order given, so that when a tracer gives more headers than a message carries, the first ones stay
        setCarrier(new LinkedHashMap<>(4));
    }

    private static void put(@Nullable Map<String, String> carrier, String key, String value) {
        if (carrier != null) {
            carrier.put(key, value);
        }
    }

    /** {@return the entity type} */
    public String getTypeName() {
        return this.typeName;
    }

    /** {@return the entity id} */
    public String getEntityId() {
        return this.entityId;
    }

    /** {@return true for an ask, false for a tell} */
    public boolean isAsk() {
        return this.ask;
    }

    /** {@return how the message ended on the sender's side, or {@code null} while it has not} */
    public @Nullable AskOutcome getOutcome() {
        return this.outcome;
    }

    /** {@return for an ask, whether it was last sent to another node; false for a tell} */
    public boolean isRemote() {
        return this.remote;
    }

    void ended(AskOutcome outcome, boolean remote) {
        this.outcome = outcome;
        this.remote = remote;
    }
}
