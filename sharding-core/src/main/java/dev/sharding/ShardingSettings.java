package dev.sharding;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Every setting of a sharding node, immutable. Start from {@link #defaults()} and change with the {@code withX}
 * methods; {@link #validate()} names the first setting that is out of range.
 *
 * @param clusterName the cluster to join; nodes with the same name form one cluster
 * @param nodeName the name of this node, or {@code null} for "bind-address:port"
 * @param numberOfShards the default number of shards per entity type
 * @param askTimeout the default timeout of an ask
 * @param bufferSize the most messages a region holds while it waits for shard homes
 * @param retryInterval how often unanswered protocol requests are repeated
 * @param maxPayloadSize the largest encoded message or reply, in bytes
 * @param rebalanceInterval how often the coordinator considers moving shards
 * @param rebalanceAbsoluteLimit the most shards one rebalance round moves
 * @param rebalanceRelativeLimit the most shards one rebalance round moves, as a fraction of all shards of the type
 * @param handoffTimeout the longest a shard handoff may take; entities still running then are stopped forcibly
 * @param passivationIdleTimeout how long an entity may go without a message before it is passivated; zero for never
 * @param passivationMaxActiveEntities the most live entities per region before the least recently used are
 *     passivated; zero for no limit
 * @param bindAddress the address the JGroups transport binds to
 * @param bindPort the first port the JGroups transport tries; the next free one is taken
 * @param portRange how many ports above {@code bindPort} may be taken
 * @param initialHosts the members to discover, as {@code host[port]} or {@code host[first..last]}, comma separated
 * @param jgroupsConfig a JGroups stack file or resource replacing the default TCP stack, or {@code null}
 * @param entities settings per entity type, by type name
 * @param jgroups discovery, ports, frame limit and security of the built-in JGroups stack
 * @param splitBrain how a partitioned cluster decides which side keeps running
 * @param member this node's roles and application version, and how many members must join before shards are placed
 * @param entityRestartBackoff the longest wait between attempts to start an entity whose creation or state read
 *     failed; the first retry comes after 100 ms and the wait doubles up to this
 * @param shardFailureBackoff the longest wait between attempts to read the remembered entities of a shard that
 *     started here, when the read fails; the same doubling from 100 ms
 * @param passivationActiveEntityLimit the most live entities on this node of the types whose passivation strategy
 *     has a limit ({@link PassivationStrategy#limited()}), divided evenly over those types
 * @param rebalanceStableAfter how long no member may have joined or left before the coordinator moves shards; a
 *     change of membership starts a round once it has been stable that long, without waiting for the interval
 * @param bufferBytes the most bytes of messages from other nodes a region holds while it waits for shard homes (with
 *     {@code bufferSize} bounding the messages of every origin)
 * @param mailboxSize the most messages that may wait in one entity's mailbox; beyond it asks fail with
 *     {@link BufferFullException} and tells are dropped and counted (the messages the entity's run under way has
 *     taken, at most 32, count until the run ends, so a message may be refused with up to 32 fewer waiting)
 * @param blockedThreadThreshold how long one piece of work may hold one of the node's own threads (the control
 *     thread, the transport's threads) before a WARN with its stack is logged and counted; zero turns the check off
 * @param backpressure how much is queued toward a member that reads slowly, how long senders wait for room there,
 *     and when such a member is suspected
 */
public record ShardingSettings(
        String clusterName,
        @Nullable String nodeName,
        int numberOfShards,
        Duration askTimeout,
        int bufferSize,
        Duration retryInterval,
        int maxPayloadSize,
        Duration rebalanceInterval,
        int rebalanceAbsoluteLimit,
        double rebalanceRelativeLimit,
        Duration handoffTimeout,
        Duration passivationIdleTimeout,
        int passivationMaxActiveEntities,
        String bindAddress,
        int bindPort,
        int portRange,
        String initialHosts,
        @Nullable String jgroupsConfig,
        Map<String, EntityTypeSettings> entities,
        JgroupsSettings jgroups,
        SplitBrainSettings splitBrain,
        MemberSettings member,
        Duration entityRestartBackoff,
        Duration shardFailureBackoff,
        int passivationActiveEntityLimit,
        Duration rebalanceStableAfter,
        long bufferBytes,
        int mailboxSize,
        Duration blockedThreadThreshold,
        BackpressureSettings backpressure) {

    /** Default cluster name. */
    public static final String DEFAULT_CLUSTER_NAME = "sharding";
    /** Default number of shards per entity type. */
    public static final int DEFAULT_NUMBER_OF_SHARDS = 100;
    /** Default ask timeout. */
    public static final Duration DEFAULT_ASK_TIMEOUT = Duration.ofSeconds(5);
    /** Default region buffer size. */
    public static final int DEFAULT_BUFFER_SIZE = 100_000;
    /** Default bytes of messages from other nodes a region buffers: 256 MiB. */
    public static final long DEFAULT_BUFFER_BYTES = 256L * 1024 * 1024;
    /** Default most messages waiting in one entity's mailbox. */
    public static final int DEFAULT_MAILBOX_SIZE = 100_000;
    /** Default time one piece of work may hold a thread of the node before it is reported. */
    public static final Duration DEFAULT_BLOCKED_THREAD_THRESHOLD = Duration.ofMillis(500);
    /** Default retry interval. */
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(1);
    /** Default largest payload: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_SIZE = 1024 * 1024;
    /** Default rebalance interval. */
    public static final Duration DEFAULT_REBALANCE_INTERVAL = Duration.ofSeconds(10);
    /** Default time the membership must be stable before a rebalance round. */
    public static final Duration DEFAULT_REBALANCE_STABLE_AFTER = Duration.ofSeconds(2);
    /** Default most shards moved per rebalance round. */
    public static final int DEFAULT_REBALANCE_ABSOLUTE_LIMIT = 20;
    /** Default most shards moved per rebalance round, relative to all shards of the type. */
    public static final double DEFAULT_REBALANCE_RELATIVE_LIMIT = 0.1;
    /** Default handoff timeout. */
    public static final Duration DEFAULT_HANDOFF_TIMEOUT = Duration.ofSeconds(60);
    /** Default idle time before an entity is passivated. */
    public static final Duration DEFAULT_PASSIVATION_IDLE_TIMEOUT = Duration.ofSeconds(120);
    /** Default limit of live entities per region: none. */
    public static final int DEFAULT_PASSIVATION_MAX_ACTIVE_ENTITIES = 0;
    /** Default limit of live entities per node for the limit strategies of passivation (as Pekko's). */
    public static final int DEFAULT_PASSIVATION_ACTIVE_ENTITY_LIMIT = 100_000;
    /** Default bind address. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** Default first bind port. */
    public static final int DEFAULT_BIND_PORT = 7800;
    /** Default port range. */
    public static final int DEFAULT_PORT_RANGE = 10;
    /** Default initial hosts. */
    public static final String DEFAULT_INITIAL_HOSTS = "127.0.0.1[7800..7809]";
    /** Default longest wait between attempts to start an entity that failed to start. */
    public static final Duration DEFAULT_ENTITY_RESTART_BACKOFF = Duration.ofSeconds(10);
    /** Default longest wait between attempts to read a shard's remembered entities. */
    public static final Duration DEFAULT_SHARD_FAILURE_BACKOFF = Duration.ofSeconds(10);
    /** The longest entity id, in characters. */
    public static final int MAX_ENTITY_ID_LENGTH = 1024;

    /** The longest message id ({@link ShardRegion#ask(String, Object, Class, Duration, String)}), in characters. */
    public static final int MAX_MESSAGE_ID_LENGTH = 255;

    /**
     * Checks the arguments are not null and copies the map.
     */
    public ShardingSettings {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(askTimeout, "askTimeout");
        Objects.requireNonNull(retryInterval, "retryInterval");
        Objects.requireNonNull(rebalanceInterval, "rebalanceInterval");
        Objects.requireNonNull(handoffTimeout, "handoffTimeout");
        Objects.requireNonNull(passivationIdleTimeout, "passivationIdleTimeout");
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(initialHosts, "initialHosts");
        entities = Map.copyOf(entities);
        Objects.requireNonNull(jgroups, "jgroups");
        Objects.requireNonNull(splitBrain, "splitBrain");
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(entityRestartBackoff, "entityRestartBackoff");
        Objects.requireNonNull(shardFailureBackoff, "shardFailureBackoff");
        Objects.requireNonNull(rebalanceStableAfter, "rebalanceStableAfter");
        Objects.requireNonNull(blockedThreadThreshold, "blockedThreadThreshold");
        Objects.requireNonNull(backpressure, "backpressure");
    }

    /**
     * The defaults.
     *
     * @return settings with every default
     */
    public static ShardingSettings defaults() {
        return new SettingsCopy().build();
    }

    /**
     * Checks every setting.
     *
     * @return these settings
     * @throws IllegalArgumentException naming the first invalid setting, its value and the rule
     */
    public ShardingSettings validate() {
        SettingsValidation.check(this);
        return this;
    }

    /**
     * Copy with other split-brain settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withSplitBrain(SplitBrainSettings value) {
        return copy(c -> c.splitBrain = value);
    }

    /**
     * Copy with other roles, application version or minimum number of members.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withMember(MemberSettings value) {
        return copy(c -> c.member = value);
    }

    /**
     * Copy with other longest waits between start attempts of entities and between reads of remembered entities.
     *
     * @param entityRestart the longest wait before an entity whose start failed tries again
     * @param shardFailure the longest wait before a failed read of a shard's remembered entities is made again
     * @return the copy
     */
    public ShardingSettings withBackoff(Duration entityRestart, Duration shardFailure) {
        return copy(c -> {
            c.entityRestartBackoff = entityRestart;
            c.shardFailureBackoff = shardFailure;
        });
    }

    /**
     * Copy with other backpressure settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBackpressure(BackpressureSettings value) {
        return copy(c -> c.backpressure = value);
    }

    private ShardingSettings copy(java.util.function.Consumer<SettingsCopy> change) {
        SettingsCopy c = new SettingsCopy(this);
        change.accept(c);
        return c.build();
    }

    /**
     * The settings of one entity type, or its defaults.
     *
     * @param typeName the type
     * @return its settings
     */
    public EntityTypeSettings entity(String typeName) {
        return entities.getOrDefault(typeName, EntityTypeSettings.DEFAULT);
    }

    /**
     * Copy with another cluster name.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withClusterName(String value) {
        return copy(c -> c.clusterName = value);
    }

    /**
     * Copy with another node name, or {@code null} for "bind-address:port".
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withNodeName(@Nullable String value) {
        return copy(c -> c.nodeName = value);
    }

    /**
     * Copy with another default number of shards.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withNumberOfShards(int value) {
        return copy(c -> c.numberOfShards = value);
    }

    /**
     * Copy with another ask timeout.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withAskTimeout(Duration value) {
        return copy(c -> c.askTimeout = value);
    }

    /**
     * Copy with another buffer size.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBufferSize(int value) {
        return copy(c -> c.bufferSize = value);
    }

    /**
     * Copy with another bound on the bytes a region buffers.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBufferBytes(long value) {
        return copy(c -> c.bufferBytes = value);
    }

    /**
     * Copy with another bound on an entity's mailbox.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withMailboxSize(int value) {
        return copy(c -> c.mailboxSize = value);
    }

    /**
     * Copy with another blocked-thread threshold.
     *
     * @param value the new value; zero turns the check off
     * @return the copy
     */
    public ShardingSettings withBlockedThreadThreshold(Duration value) {
        return copy(c -> c.blockedThreadThreshold = value);
    }

    /**
     * Copy with another retry interval.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRetryInterval(Duration value) {
        return copy(c -> c.retryInterval = value);
    }

    /**
     * Copy with another largest payload in bytes.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withMaxPayloadSize(int value) {
        return copy(c -> c.maxPayloadSize = value);
    }

    /**
     * Copy with another rebalance interval.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRebalanceInterval(Duration value) {
        return copy(c -> c.rebalanceInterval = value);
    }

    /**
     * Copy with another time the membership must be stable before a rebalance round.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRebalanceStableAfter(Duration value) {
        return copy(c -> c.rebalanceStableAfter = value);
    }

    /**
     * Copy with another absolute limit per round.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRebalanceAbsoluteLimit(int value) {
        return copy(c -> c.rebalanceAbsoluteLimit = value);
    }

    /**
     * Copy with another relative limit per round.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRebalanceRelativeLimit(double value) {
        return copy(c -> c.rebalanceRelativeLimit = value);
    }

    /**
     * Copy with another handoff timeout.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withHandoffTimeout(Duration value) {
        return copy(c -> c.handoffTimeout = value);
    }

    /**
     * Copy with another stack file or resource, or {@code null} for the default TCP stack.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withJgroupsConfig(@Nullable String value) {
        return copy(c -> c.jgroupsConfig = value);
    }

    /**
     * Copy with another idle time before passivation.
     *
     * @param value the time, or zero for never
     * @return the copy
     */
    public ShardingSettings withPassivationIdleTimeout(Duration value) {
        return copy(c -> c.passivationIdleTimeout = value);
    }

    /**
     * Copy with another limit of live entities per region.
     *
     * @param value the limit, or zero for none
     * @return the copy
     */
    public ShardingSettings withPassivationMaxActiveEntities(int value) {
        return copy(c -> c.passivationMaxActiveEntities = value);
    }

    /**
     * Copy with another limit of live entities per node for the limit strategies of passivation.
     *
     * @param value the limit, divided evenly over the types whose strategy has a limit
     * @return the copy
     */
    public ShardingSettings withPassivationActiveEntityLimit(int value) {
        return copy(c -> c.passivationActiveEntityLimit = value);
    }

    /**
     * Copy with other JGroups addresses.
     *
     * @param address the bind address
     * @param port the first bind port
     * @param range how many ports above it may be taken
     * @param hosts the initial hosts
     * @return the copy
     */
    public ShardingSettings withNetwork(String address, int port, int range, String hosts) {
        return copy(c -> {
            c.bindAddress = address;
            c.bindPort = port;
            c.portRange = range;
            c.initialHosts = hosts;
        });
    }

    /**
     * Copy with other discovery, port, frame and security settings of the built-in JGroups stack.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withJgroups(JgroupsSettings value) {
        return copy(c -> c.jgroups = value);
    }

    /**
     * Copy with settings for one entity type.
     *
     * @param typeName the type
     * @param value its settings
     * @return the copy
     */
    public ShardingSettings withEntity(String typeName, EntityTypeSettings value) {
        Map<String, EntityTypeSettings> map = new HashMap<>(entities);
        map.put(typeName, value);
        return copy(c -> c.entities = map);
    }

    /**
     * Settings of one entity type.
     *
     * @param numberOfShards the number of shards, or 0 for the node's default
     * @param proxyOnly whether this node only routes messages of the type and hosts none of its entities
     * @param idleTimeout the type's idle time before passivation (zero for never), or {@code null} for the node's
     * @param rememberEntities whether the ids of live entities are stored and the entities started again, without a
     *     message, wherever and whenever their shard starts; such entities are never passivated for idleness
     * @param role the role a node must have to host the type ({@link MemberSettings#roles()}); the others are proxies
     *     of it; {@code null} for every node
     * @param appliedMessages how many ids of applied messages each entity keeps, and for how long, so that a retry
     *     with the same id applies once ({@link ShardRegion#ask(String, Object, Class, Duration, String)})
     * @param passivation how live entities are chosen for passivation when there are too many
     */
    public record EntityTypeSettings(
            int numberOfShards,
            boolean proxyOnly,
            @Nullable Duration idleTimeout,
            boolean rememberEntities,
            @Nullable String role,
            AppliedMessageWindow appliedMessages,
            PassivationStrategy passivation) {

        /** The defaults: the node's number of shards and idle timeout, hosting, not remembering, no role. */
        public static final EntityTypeSettings DEFAULT = new EntityTypeSettings(
                0, false, null, false, null, AppliedMessageWindow.DEFAULT, PassivationStrategy.IDLE);

        /** Checks the values. */
        public EntityTypeSettings {
            Objects.requireNonNull(appliedMessages, "appliedMessages");
            Objects.requireNonNull(passivation, "passivation");
        }

        /**
         * Settings with idle passivation.
         *
         * @param numberOfShards the number of shards, or 0 for the node's default
         * @param proxyOnly whether this node only routes messages of the type
         * @param idleTimeout the type's idle time before passivation, or {@code null} for the node's
         * @param rememberEntities whether live entities are remembered
         * @param role the role a node must have to host the type, or {@code null}
         * @param appliedMessages the window of applied message ids
         */
        public EntityTypeSettings(
                int numberOfShards,
                boolean proxyOnly,
                @Nullable Duration idleTimeout,
                boolean rememberEntities,
                @Nullable String role,
                AppliedMessageWindow appliedMessages) {
            this(
                    numberOfShards,
                    proxyOnly,
                    idleTimeout,
                    rememberEntities,
                    role,
                    appliedMessages,
                    PassivationStrategy.IDLE);
        }

        /**
         * Settings with the default window of applied message ids.
         *
         * @param numberOfShards the number of shards, or 0 for the node's default
         * @param proxyOnly whether this node only routes messages of the type
         * @param idleTimeout the type's idle time before passivation, or {@code null} for the node's
         * @param rememberEntities whether live entities are remembered
         * @param role the role a node must have to host the type, or {@code null}
         */
        public EntityTypeSettings(
                int numberOfShards,
                boolean proxyOnly,
                @Nullable Duration idleTimeout,
                boolean rememberEntities,
                @Nullable String role) {
            this(numberOfShards, proxyOnly, idleTimeout, rememberEntities, role, AppliedMessageWindow.DEFAULT);
        }

        /**
         * Settings with no role.
         *
         * @param numberOfShards the number of shards, or 0 for the node's default
         * @param proxyOnly whether this node only routes messages of the type
         * @param idleTimeout the type's idle time before passivation, or {@code null} for the node's
         * @param rememberEntities whether live entities are remembered
         */
        public EntityTypeSettings(
                int numberOfShards, boolean proxyOnly, @Nullable Duration idleTimeout, boolean rememberEntities) {
            this(numberOfShards, proxyOnly, idleTimeout, rememberEntities, null);
        }

        /**
         * Settings with the node's idle timeout, not remembering entities.
         *
         * @param numberOfShards the number of shards, or 0 for the node's default
         * @param proxyOnly whether this node only routes messages of the type
         */
        public EntityTypeSettings(int numberOfShards, boolean proxyOnly) {
            this(numberOfShards, proxyOnly, null, false, null);
        }

        /**
         * Copy that remembers entities or not.
         *
         * @param value whether to remember
         * @return the copy
         */
        public EntityTypeSettings withRememberEntities(boolean value) {
            return new EntityTypeSettings(
                    numberOfShards, proxyOnly, idleTimeout, value, role, appliedMessages, passivation);
        }

        /**
         * Copy with another window of applied message ids.
         *
         * @param value the window
         * @return the copy
         */
        public EntityTypeSettings withAppliedMessages(AppliedMessageWindow value) {
            return new EntityTypeSettings(
                    numberOfShards, proxyOnly, idleTimeout, rememberEntities, role, value, passivation);
        }

        /**
         * Copy with another passivation strategy.
         *
         * @param value the strategy
         * @return the copy
         */
        public EntityTypeSettings withPassivation(PassivationStrategy value) {
            return new EntityTypeSettings(
                    numberOfShards, proxyOnly, idleTimeout, rememberEntities, role, appliedMessages, value);
        }

        /**
         * Copy hosted only on nodes with a role.
         *
         * @param value the role, or {@code null} for every node
         * @return the copy
         */
        public EntityTypeSettings withRole(@Nullable String value) {
            return new EntityTypeSettings(
                    numberOfShards, proxyOnly, idleTimeout, rememberEntities, value, appliedMessages, passivation);
        }
    }

    /**
     * How many ids of applied messages each entity of a type keeps, and for how long: a message retried with a kept
     * id gets the recorded reply; one retried after its id left the window is applied again. The ids are written
     * with the entity's state on every write of a message with an id, so a larger window costs bytes on each write.
     *
     * @param maxCount the most ids kept per entity, the oldest dropped first (at least 1)
     * @param maxAge how long an id is kept after its message was applied (positive)
     */
    public record AppliedMessageWindow(int maxCount, Duration maxAge) {

        /** The defaults: 64 ids, for an hour. */
        public static final AppliedMessageWindow DEFAULT = new AppliedMessageWindow(64, Duration.ofHours(1));

        /** Checks the values. */
        public AppliedMessageWindow {
            Objects.requireNonNull(maxAge, "maxAge");
            if (maxCount < 1 || maxCount > 100_000) {
                throw new InvalidSettingException(
                        "applied-messages.max-count", maxCount, "must be between 1 and 100000");
            }
            if (maxAge.isNegative() || maxAge.isZero()) {
                throw new InvalidSettingException("applied-messages.max-age", maxAge, "must be positive");
            }
        }
    }

    /**
     * The idle time before an entity of a type is passivated.
     *
     * @param typeName the type
     * @return the type's own, or the node's; zero for never
     */
    public Duration idleTimeout(String typeName) {
        if (entity(typeName).rememberEntities()) {
            return Duration.ZERO;
        }
        Duration own = entity(typeName).idleTimeout();
        return own != null ? own : passivationIdleTimeout;
    }
}
