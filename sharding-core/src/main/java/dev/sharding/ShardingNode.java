package dev.sharding;

import dev.sharding.internal.node.NodeAssembly;
import dev.sharding.internal.node.NodeRuntime;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardAllocationStrategy;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jgroups.JChannel;
import org.jspecify.annotations.Nullable;

/**
 * A node of a sharding cluster, usable from plain Java: give it the entity types it runs, {@link #start()} it, and
 * reach entities through {@link #region(Class)}.
 *
 * <pre>{@code
 * ShardingNode node = ShardingNode.builder(ShardingSettings.defaults())
 *         .entityType(EntityType.of(Counter.class, ctx -> new Counter(ctx)))
 *         .build();
 * node.start();
 * node.region(Counter.class).tell("c-1", new Add(5));
 * }</pre>
 */
public final class ShardingNode implements AutoCloseable {

    /** How long {@link #close()} waits for entities to stop. */
    public static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final NodeRuntime runtime;

    private ShardingNode(NodeRuntime runtime) {
        this.runtime = runtime;
    }

    /**
     * Starts building a node.
     *
     * @param settings the settings
     * @return a builder
     */
    public static Builder builder(ShardingSettings settings) {
        return new Builder(settings);
    }

    /**
     * Joins the cluster. Blocks until this node is a member.
     *
     * @throws ShardingException if the cluster cannot be joined
     */
    public void start() {
        runtime.start();
    }

    /**
     * Leaves the cluster gracefully: hands off every shard hosted here to the other nodes (bounded by
     * {@code handoff-timeout}), with no message lost, then stops and leaves.
     */
    @Override
    public void close() {
        runtime.stop(STOP_TIMEOUT);
    }

    /**
     * The region of an entity class.
     *
     * @param entityClass the class
     * @param <T> the class
     * @return its region
     * @throws IllegalArgumentException if this node does not run the class
     */
    public <T> ShardRegion<T> region(Class<T> entityClass) {
        return runtime.status().region(entityClass);
    }

    /**
     * The region of an entity type.
     *
     * @param typeName the type name
     * @return its region
     * @throws IllegalArgumentException if this node does not run the type
     */
    public ShardRegion<?> region(String typeName) {
        return runtime.status().region(typeName);
    }

    /** {@return the names of the entity types this node runs, in the order they were given; a copy} */
    public Set<String> typeNames() {
        return runtime.status().typeNames();
    }

    /** {@return this node's name} */
    public String nodeName() {
        return runtime.status().nodeName();
    }

    /** {@return this node's member} */
    public Member self() {
        return runtime.status().self();
    }

    /** {@return the members of the current view, oldest first} */
    public List<Member> members() {
        return runtime.status().members();
    }

    /** {@return the member whose coordinator is active, or {@code null} before the first view} */
    public @Nullable Member coordinator() {
        return runtime.status().coordinator();
    }

    /** {@return whether this node runs: true between start and close} */
    public boolean isRunning() {
        return runtime.status().isRunning();
    }

    /** {@return whether this node's regions are registered with the current coordinator} */
    public boolean isRegistered() {
        return runtime.status().isRegistered();
    }

    /**
     * Why this node refuses messages now: it is on the losing side of a network partition, it lost its lease to
     * serve (frozen or cut off), or the coordinator refused it for good ({@link #refusedReason()}). Its calls fail
     * with {@link ClusterPartitionedException} meanwhile.
     *
     * @return the reason, or {@code null} while the node serves
     */
    public @Nullable String partitionedReason() {
        return runtime.status().partitionedReason();
    }

    /**
     * Why the coordinator refused this node for good, or {@code null}: an entity type with another number of shards
     * than the cluster's, another store, or a store another cluster (another {@code sharding.cluster-name} on the same
     * database and table prefix) holds. A refused node never serves; its calls fail with
     * {@link ClusterPartitionedException} naming the reason. It takes a restart with the cluster's settings.
     *
     * @return the reason, or {@code null} while the coordinator has not refused it
     */
    public @Nullable String refusedReason() {
        return runtime.status().registrationRefused();
    }

    /** {@return whether this node holds a lease from its coordinator and may serve entities now} */
    public boolean isServing() {
        return runtime.status().isServing();
    }

    /**
     * {@return whether the current view has lasted {@code sharding.split-brain.stable-after}} Until then, a member lost
     * counts against the membership before the last change too.
     */
    public boolean isViewStable() {
        return runtime.status().isViewStable();
    }

    /**
     * This node's counts of traffic it held back or dropped: backpressure's refusals, and control messages from
     * members that may not send them.
     *
     * @return the counts, live
     */
    public NodeTraffic traffic() {
        return runtime.traffic();
    }

    /** {@return whether this node hosts the active coordinator and it has rebuilt its table} */
    public boolean isCoordinatorReady() {
        return runtime.status().isCoordinatorReady();
    }

    /**
     * Why the cluster places no shard yet: it waits for {@code sharding.min-nr-of-members} members.
     *
     * @return the reason, or {@code null} when shards are placed
     */
    public @Nullable String placementWait() {
        return runtime.status().placementWait();
    }

    /**
     * This node's region of a type, as an operator sees it: what it hosts and holds now, and its passivation.
     *
     * @param typeName the type
     * @return the region
     * @throws IllegalArgumentException for an unknown type
     */
    public LocalRegion localRegion(String typeName) {
        return runtime.status().region(typeName);
    }

    /**
     * What an operator asks of the cluster through this node: where every shard is, a rebalance now, one shard moved.
     *
     * @return the requests
     */
    public ClusterAdmin admin() {
        return runtime.admin();
    }

    /** {@return whether this node is handing off its shards to leave, while a graceful stop drains it} */
    public boolean isLeaving() {
        return runtime.status().isLeaving();
    }

    /**
     * Stops as a crashed process would: sends nothing more, not even a goodbye, and stops no entity. The others
     * notice through failure detection. Meant for tests of failure handling.
     */
    public void crash() {
        runtime.crash();
    }

    /**
     * Builds a {@link ShardingNode}.
     */
    public static final class Builder {

        private final NodeAssembly assembly;

        private Builder(ShardingSettings settings) {
            this.assembly = new NodeAssembly(settings);
        }

        /**
         * Adds an entity type.
         *
         * @param type the type
         * @return this builder
         */
        public Builder entityType(EntityType<?> type) {
            assembly.entityType(type);
            return this;
        }

        /**
         * Declares more types that may cross the network as messages or replies (with the default codec).
         *
         * @param classes the classes
         * @return this builder
         */
        public Builder messageTypes(Collection<Class<?>> classes) {
            assembly.messageTypes(classes);
            return this;
        }

        /**
         * Sets the allocation strategy of this node's coordinator.
         *
         * @param value the strategy
         * @return this builder
         */
        public Builder allocationStrategy(ShardAllocationStrategy value) {
            assembly.allocationStrategy(value);
            return this;
        }

        /**
         * Replaces the default codec (Jackson Smile over the declared types).
         *
         * @param value the codec
         * @return this builder
         */
        public Builder codec(MessageCodec value) {
            assembly.codec(value);
            return this;
        }

        /**
         * Runs entities on an executor of one's own instead of a work-stealing pool sized to the processors; it is
         * not shut down by the node.
         *
         * @param value the executor
         * @return this builder
         */
        public Builder executor(ExecutorService value) {
            assembly.executor(value);
            return this;
        }

        /**
         * Runs the stages that callers chain on the futures of {@link ShardRegion#ask} on an executor of one's own, one
         * task per ask, instead of on the entity executor ({@link ShardRegion} says where they run). Give one when
         * such callbacks block for long, so that they do not hold up the entities. The node does not shut it down. If
         * it refuses a task, the future completes on the thread that decided the outcome.
         *
         * @param value the executor
         * @return this builder
         */
        public Builder callbackExecutor(Executor value) {
            assembly.callbackExecutor(value);
            return this;
        }

        /**
         * Keeps entity state, shard epochs and remembered entities in a store of one's own (by default in this
         * JVM's memory, without durability). The node does not close it.
         *
         * @param value the store
         * @return this builder
         */
        public Builder store(ShardingStore value) {
            assembly.store(value);
            return this;
        }

        /**
         * Changes the JGroups channel before it connects.
         *
         * @param value the customizer
         * @return this builder
         */
        public Builder channelCustomizer(Consumer<JChannel> value) {
            assembly.channelCustomizer(value);
            return this;
        }

        /**
         * Whether local messages, replies and written states go through the codec and back, as they would between
         * nodes or to a shard's next owner, so that a test of one node fails where a message or a state would not
         * survive another node. Off by default; meant for tests (it costs a round trip through the codec each).
         *
         * @param value whether to encode and decode local deliveries
         * @return this builder
         */
        public Builder serializeLocalMessages(boolean value) {
            assembly.serializeLocalMessages(value);
            return this;
        }

        /**
         * Where the node's counts and times go (asks, tells, drops, passivations, handoffs, state writes, rebalance
         * rounds); none by default. The Spring Boot starter sets a Micrometer one when a {@code MeterRegistry} is
         * present.
         *
         * @param value the recorder
         * @return this builder
         */
        public Builder metrics(ShardingMetrics value) {
            assembly.metrics(value);
            return this;
        }

        /**
         * How the node traces messages from their sender to the entity that handles them, with the trace context
         * carried in the envelope between nodes; none by default, which costs nothing per message. The Spring Boot
         * starter sets one based on Micrometer's Observation API when an {@code ObservationRegistry} is present.
         *
         * @param value the tracing
         * @return this builder
         */
        public Builder tracing(MessageTracing value) {
            assembly.tracing(value);
            return this;
        }

        /**
         * The database where {@code sharding.jgroups.discovery=jdbc} keeps its table ({@code <prefix>discovery});
         * by default the JDBC store's own, when the store is a JDBC one.
         *
         * @param dataSource the database
         * @param tablePrefix prepended to the table name
         * @return this builder
         */
        public Builder discoveryDatabase(DataSource dataSource, String tablePrefix) {
            assembly.discoveryDatabase(dataSource, tablePrefix);
            return this;
        }

        /**
         * The declared message and reply types of the entity types added so far, plus the extra ones.
         *
         * @return the classes the default codec accepts
         */
        public Set<Class<?>> declaredTypes() {
            return assembly.declaredTypes();
        }

        /**
         * Builds the node (not started). Every declared message, reply and state class is first sent through the
         * codec and back, with a value in each field, so that a class the codec cannot carry between nodes fails
         * here rather than once its entity lives on another node.
         *
         * @return the node
         * @throws UndecodableTypeException if a declared class does not come back from the codec as it was sent
         */
        public ShardingNode build() {
            return new ShardingNode(assembly.runtime());
        }
    }
}
