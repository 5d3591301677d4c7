package dev.sharding.autoconfigure.metrics;

import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.ShardingMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * The node's counts and times as Micrometer meters. Every meter of an entity type is registered when the node builds
 * the type's region, for every outcome and reason, so recording looks up nothing and allocates nothing, and a series
 * exists (at zero) before its first event.
 *
 * <ul>
 * <li>{@code sharding.asks}: timer, tags {@code type}, {@code outcome} (success, timeout, unreachable, rejected,
 * failed) and {@code remote} (true when the ask was last sent to another node);</li>
 * <li>{@code sharding.tells}: counter, tag {@code type};</li>
 * <li>{@code sharding.dropped}: counter of tells dropped, tags {@code type} and {@code reason} (buffer-full,
 * rejected, partitioned, stopped, backpressure);</li>
 * <li>{@code sharding.passivations}: counter, tag {@code type};</li>
 * <li>{@code sharding.handoffs}: timer of the handoffs of shards this node hosted, tag {@code type};</li>
 * <li>{@code sharding.store.write}: timer of entity state writes, tags {@code type} and {@code outcome} (success,
 * failure);</li>
 * <li>{@code sharding.store.batch.size}: distribution summary of the writes per store transaction;</li>
 * <li>{@code sharding.rebalance.rounds}: counter of the rebalance rounds that moved shards, on the coordinator's
 * node;</li>
 * <li>{@code sharding.blocked.threads}: counter of the times one of the node's own threads was held by one piece of
 * work longer than {@code sharding.blocked-thread-threshold}, tag {@code thread} (control, transport, store).</li>
 * </ul>
 *
 * The gauges are {@link ShardingNodeMeters}'.
 */
public final class MicrometerShardingMetrics implements ShardingMetrics {

    private final MeterRegistry registry;

    private final Counter rebalanceRounds;

    private final DistributionSummary batchSize;

    private final Counter blockedControl;

    private final Counter blockedTransport;

    private final Counter blockedStore;

    /**
     * Registers the node-wide meters.
     *
     * @param registry where the meters go
     */
    public MicrometerShardingMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.rebalanceRounds = Counter.builder("sharding.rebalance.rounds")
                .description("Rebalance rounds that started moving shards, run by the coordinator on this node")
                .register(registry);
        this.batchSize = DistributionSummary.builder("sharding.store.batch.size")
                .description("Operations per store transaction")
                .register(registry);
        this.blockedControl = blocked(registry, "control");
        this.blockedTransport = blocked(registry, "transport");
        this.blockedStore = blocked(registry, "store");
    }

    private static Counter blocked(MeterRegistry registry, String thread) {
        return Counter.builder("sharding.blocked.threads")
                .description("Times one of the node's own threads was held by one piece of work longer than the"
                        + " blocked-thread threshold")
                .tag("thread", thread)
                .register(registry);
    }

    @Override
    public EntityTypeMetrics entityType(String typeName) {
        return new TypeMeters(registry, typeName);
    }

    @Override
    public void rebalanceRound() {
        rebalanceRounds.increment();
    }

    @Override
    public void storeBatch(int writes) {
        batchSize.record(writes);
    }

    @Override
    public void blockedThread(String thread) {
        switch (thread) {
            case "control" -> blockedControl.increment();
            case "transport" -> blockedTransport.increment();
            case "store" -> blockedStore.increment();
            default -> blocked(registry, thread).increment();
        }
    }

    @Override
    public ProjectionMetrics projection(String projection, int slice) {
        return new SliceMeters(registry, projection, slice);
    }

    /**
     * The meters of one slice of a projection on this node: {@code sharding.projection.events} (counter) and
     * {@code sharding.projection.lag} (gauge, seconds), tagged {@code projection} and {@code slice}. The gauge reads
     * zero when the slice is caught up, and is removed when its worker leaves the node.
     */
    static final class SliceMeters implements ProjectionMetrics {

        private final MeterRegistry registry;

        private final Counter events;

        private final java.util.concurrent.atomic.AtomicLong lagMillis = new java.util.concurrent.atomic.AtomicLong();

        private final io.micrometer.core.instrument.Gauge lag;

        SliceMeters(MeterRegistry registry, String projection, int slice) {
            this.registry = registry;
            this.events = Counter.builder("sharding.projection.events")
                    .description("Events a projection's slice handled on this node")
                    .tag("projection", projection)
                    .tag("slice", Integer.toString(slice))
                    .register(registry);
            this.lag = io.micrometer.core.instrument.Gauge.builder(
                            "sharding.projection.lag", lagMillis, l -> l.get() / 1000.0)
                    .description("How long before the last event a projection's slice handled it had been written;"
                            + " 0 when caught up")
                    .baseUnit("seconds")
                    .tag("projection", projection)
                    .tag("slice", Integer.toString(slice))
                    .register(registry);
        }

        @Override
        public void handled(int count, long millis) {
            events.increment(count);
            lagMillis.set(millis);
        }

        @Override
        public void caughtUp() {
            lagMillis.set(0);
        }

        @Override
        public void stopped() {
            registry.remove(lag);
        }
    }

    /** The meters of one entity type. */
    static final class TypeMeters implements EntityTypeMetrics {

        private static final AskOutcome[] OUTCOMES = AskOutcome.values();

        private static final DropReason[] REASONS = DropReason.values();

        /** Indexed by {@code outcome.ordinal() * 2 + (remote ? 1 : 0)}. */
        private final Timer[] asks = new Timer[OUTCOMES.length * 2];

        private final Counter tells;

        private final Counter[] dropped = new Counter[REASONS.length];

        private final Counter passivations;

        private final Timer handoffs;

        private final Timer writesSucceeded;

        private final Timer writesFailed;

        TypeMeters(MeterRegistry registry, String type) {
            for (AskOutcome outcome : OUTCOMES) {
                for (boolean remote : new boolean[] {false, true}) {
                    asks[outcome.ordinal() * 2 + (remote ? 1 : 0)] = Timer.builder("sharding.asks")
                            .description("Asks sent on this node, from the ask to its outcome")
                            .tag("type", type)
                            .tag("outcome", outcome.tag())
                            .tag("remote", String.valueOf(remote))
                            .register(registry);
                }
            }
            tells = Counter.builder("sharding.tells")
                    .description("Tells accepted on this node")
                    .tag("type", type)
                    .register(registry);
            for (DropReason reason : REASONS) {
                dropped[reason.ordinal()] = Counter.builder("sharding.dropped")
                        .description("Tells dropped on this node, by reason")
                        .tag("type", type)
                        .tag("reason", reason.tag())
                        .register(registry);
            }
            passivations = Counter.builder("sharding.passivations")
                    .description("Entities passivated on this node")
                    .tag("type", type)
                    .register(registry);
            handoffs = Timer.builder("sharding.handoffs")
                    .description("Handoffs of shards this node hosted, from BeginHandOff to the shard stopped")
                    .tag("type", type)
                    .register(registry);
            writesSucceeded = write(registry, type, "success");
            writesFailed = write(registry, type, "failure");
        }

        private static Timer write(MeterRegistry registry, String type, String outcome) {
            return Timer.builder("sharding.store.write")
                    .description("Entity state writes, from the write to the store's answer")
                    .tag("type", type)
                    .tag("outcome", outcome)
                    .register(registry);
        }

        @Override
        public void askCompleted(AskOutcome outcome, boolean remote, long nanos) {
            asks[outcome.ordinal() * 2 + (remote ? 1 : 0)].record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void told() {
            tells.increment();
        }

        @Override
        public void dropped(DropReason reason) {
            dropped[reason.ordinal()].increment();
        }

        @Override
        public void passivated() {
            passivations.increment();
        }

        @Override
        public void handedOff(long nanos) {
            handoffs.record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void stateWritten(long nanos, boolean succeeded) {
            (succeeded ? writesSucceeded : writesFailed).record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
