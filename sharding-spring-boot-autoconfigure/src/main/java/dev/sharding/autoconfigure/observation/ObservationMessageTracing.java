package dev.sharding.autoconfigure.observation;

import dev.sharding.spi.EntityTypeMetrics.AskOutcome;
import dev.sharding.spi.MessageTracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The node's {@link MessageTracing} as Micrometer observations, so that whatever the application's
 * {@link ObservationRegistry} does with observations (traces, with a tracer; timers, with a meter registry) it does
 * with messages to entities:
 *
 * <ul>
 * <li>{@value #ASK}: an ask, from the call on the caller's thread to its outcome (reply, failure, timeout), with a
 * {@link ShardingSendContext}, a child of the observation current on the caller's thread;</li>
 * <li>{@value #TELL}: a tell, from the call until it is handed on;</li>
 * <li>{@value #HANDLE}: an entity handling a message that arrived with headers, on the entity's node, from the
 * moment it reaches the handler to the reply (after any state write), with a {@link ShardingHandleContext} that
 * continues the sender's trace; current on the entity's thread while the handler runs.</li>
 * </ul>
 *
 * Low-cardinality key values: {@value #TYPE} (the entity type), {@value #OUTCOME} ({@code success},
 * {@code timeout}, {@code unreachable}, {@code rejected}, {@code failed}), for asks {@value #REMOTE} ({@code true}
 * when the ask was last sent to another node), for handling {@value #KIND} ({@code ask} or {@code tell}); high
 * cardinality: {@value #ENTITY_ID}. The contextual name, a span's name, is {@code "ask <type>"}, {@code "tell <type>"}
 * or {@code "handle <type>"}.
 *
 * <p>When the registry has no handler, or its predicates refuse the observation (for example
 * {@code management.observations.enable.sharding.tell=false}), the message goes untraced: no headers, nothing
 * allocated beyond Micrometer's own check.
 */
public final class ObservationMessageTracing implements MessageTracing {

    /** The observation of an ask. */
    public static final String ASK = "sharding.ask";

    /** The observation of a tell. */
    public static final String TELL = "sharding.tell";

    /** The observation of an entity handling a message. */
    public static final String HANDLE = "sharding.handle";

    /** The key of the entity type. */
    public static final String TYPE = "sharding.type";

    /** The key of the outcome. */
    public static final String OUTCOME = "sharding.outcome";

    /** The key of whether an ask was last sent to another node. */
    public static final String REMOTE = "sharding.remote";

    /** The key of whether a handled message was an ask or a tell. */
    public static final String KIND = "sharding.kind";

    /** The key of the entity id (high cardinality). */
    public static final String ENTITY_ID = "sharding.entity.id";

    private final ObservationRegistry registry;

    /**
     * Creates the tracing.
     *
     * @param registry where the observations go
     */
    public ObservationMessageTracing(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public @Nullable Sending startAsk(String typeName, String entityId, Object message) {
        return send(ASK, "ask ", typeName, entityId, true);
    }

    @Override
    public @Nullable Sending startTell(String typeName, String entityId, Object message) {
        return send(TELL, "tell ", typeName, entityId, false);
    }

    private @Nullable Sending send(String name, String verb, String typeName, String entityId, boolean ask) {
        if (this.registry.isNoop()) {
            return null;
        }
        Observation observation = Observation.createNotStarted(
                name, () -> new ShardingSendContext(typeName, entityId, ask), this.registry);
        if (observation.isNoop()) {
            return null;
        }
        observation
                .contextualName(verb + typeName)
                .lowCardinalityKeyValue(TYPE, typeName)
                .highCardinalityKeyValue(ENTITY_ID, entityId)
                .start();
        return new ObservedSending(observation, (ShardingSendContext) observation.getContext(), ask);
    }

    @Override
    public @Nullable Handling startHandling(
            String typeName, String entityId, Object message, Map<String, String> headers, boolean ask) {
        if (this.registry.isNoop()) {
            return null;
        }
        Observation observation = Observation.createNotStarted(
                HANDLE, () -> new ShardingHandleContext(typeName, entityId, ask, headers), this.registry);
        if (observation.isNoop()) {
            return null;
        }
        observation
                .contextualName("handle " + typeName)
                .lowCardinalityKeyValue(TYPE, typeName)
                .lowCardinalityKeyValue(KIND, ask ? "ask" : "tell")
                .highCardinalityKeyValue(ENTITY_ID, entityId)
                .start();
        return new ObservedHandling(observation, (ShardingHandleContext) observation.getContext());
    }

    /** The sender's side: the observation started on the caller's thread, stopped with the outcome. */
    private record ObservedSending(Observation observation, ShardingSendContext context, boolean ask)
            implements Sending {

        @Override
        public Map<String, String> headers() {
            Map<String, String> carrier = this.context.getCarrier();
            return carrier == null ? Map.of() : carrier;
        }

        @Override
        public void end(AskOutcome outcome, boolean remote, @Nullable Throwable error) {
            this.context.ended(outcome, remote);
            this.observation.lowCardinalityKeyValue(OUTCOME, outcome.tag());
            if (this.ask) {
                this.observation.lowCardinalityKeyValue(REMOTE, String.valueOf(remote));
            }
            if (error != null) {
                this.observation.error(error);
            }
            this.observation.stop();
        }
    }

    /** The entity's side: the observation started on the entity's thread, in scope while the handler runs. */
    private record ObservedHandling(Observation observation, ShardingHandleContext context) implements Handling {

        @Override
        public Scope openScope() {
            Observation.Scope scope = this.observation.openScope();
            return scope::close;
        }

        @Override
        public void end(AskOutcome outcome, @Nullable Throwable error) {
            this.context.ended(outcome);
            this.observation.lowCardinalityKeyValue(OUTCOME, outcome.tag());
            if (error != null) {
                this.observation.error(error);
            }
            this.observation.stop();
        }
    }
}
