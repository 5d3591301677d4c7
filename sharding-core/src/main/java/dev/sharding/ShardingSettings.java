package dev.sharding;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Every setting of a sharding node, immutable, shaped like the {@code sharding.*} properties: the node's own settings
 * flat, each group of properties a record ({@link RebalanceSettings}, {@link PassivationSettings},
 * {@link JgroupsSettings}, {@link SplitBrainSettings}, {@link MemberSettings}, {@link BackpressureSettings}) and the
 * entity types' settings by type name ({@link EntityTypeSettings}). Start from {@link #defaults()} and change with the
 * {@code withX} methods, or build with {@link #builder()}; {@link #validate()} names the first setting that is out of
 * range.
 *
 * <pre>{@code
 * ShardingSettings settings = ShardingSettings.builder()
 *         .clusterName("orders")
 *         .jgroups(JgroupsSettings.defaults().withNetwork("10.0.0.5", 7800, 10, "10.0.0.5[7800],10.0.0.6[7800]"))
 *         .entity("cart", EntityTypeSettings.builder().rememberEntities(true).build())
 *         .build();
 * }</pre>
 *
 * @param clusterName the cluster to join; nodes with the same name form one cluster
 * @param nodeName the name of this node, or {@code null} for "bind-address:port"
 * @param numberOfShards the default number of shards per entity type
 * @param askTimeout the default timeout of an ask
 * @param bufferSize the most messages a region holds while it waits for shard homes
 * @param bufferBytes the most bytes of messages from other nodes a region holds while it waits for shard homes (with
 *     {@code bufferSize} bounding the messages of every origin)
 * @param mailboxSize the most messages that may wait in one entity's mailbox; beyond it asks fail with
 *     {@link BufferFullException} and tells are dropped and counted (the messages the entity's run under way has
 *     taken, at most 32, count until the run ends, so a message may be refused with up to 32 fewer waiting)
 * @param blockedThreadThreshold how long one piece of work may hold one of the node's own threads (the control
 *     thread, the transport's threads) before a WARN with its stack is logged and counted; zero turns the check off
 * @param retryInterval how often unanswered protocol requests are repeated
 * @param maxPayloadSize the largest encoded message or reply, in bytes
 * @param handoffTimeout the longest a shard handoff may take; entities still running then are stopped forcibly
 * @param entityRestartBackoff the longest wait between attempts to start an entity whose creation or state read
 *     failed; the first retry comes after 100 ms and the wait doubles up to this
 * @param shardFailureBackoff the longest wait between attempts to read the remembered entities of a shard that
 *     started here, when the read fails; the same doubling from 100 ms
 * @param rebalance when the coordinator moves shards, and how many per round ({@code sharding.rebalance-interval},
 *     {@code sharding.rebalance.*})
 * @param passivation when live entities are passivated ({@code sharding.passivation.*})
 * @param jgroups the JGroups transport: addresses, stack, discovery, ports, frame limit and security
 *     ({@code sharding.jgroups.*})
 * @param splitBrain how a partitioned cluster decides which side keeps running ({@code sharding.split-brain.*})
 * @param member this node's roles and application version, and how many members must join before shards are
 *     placed ({@code sharding.roles}, {@code sharding.app-version}, {@code sharding.min-nr-of-members})
 * @param backpressure how much is queued toward a member that reads slowly, how long senders wait for room
 *     there, and when such a member is suspected ({@code sharding.backpressure.*})
 * @param entities settings per entity type, by type name ({@code sharding.entities.<type>.*})
 */
public record ShardingSettings(
        String clusterName,
        @Nullable String nodeName,
        int numberOfShards,
        Duration askTimeout,
        int bufferSize,
        long bufferBytes,
        int mailboxSize,
        Duration blockedThreadThreshold,
        Duration retryInterval,
        int maxPayloadSize,
        Duration handoffTimeout,
        Duration entityRestartBackoff,
        Duration shardFailureBackoff,
        RebalanceSettings rebalance,
        PassivationSettings passivation,
        JgroupsSettings jgroups,
        SplitBrainSettings splitBrain,
        MemberSettings member,
        BackpressureSettings backpressure,
        Map<String, EntityTypeSettings> entities) {

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

    /**
     * The largest {@code mailbox-size}: 268,435,456 messages. An entity's mailbox counts them in a field of 32 bits,
     * which a node holding millions of entities keeps small.
     */
    public static final int MAX_MAILBOX_SIZE = 1 << 28;
    /** Default time one piece of work may hold a thread of the node before it is reported. */
    public static final Duration DEFAULT_BLOCKED_THREAD_THRESHOLD = Duration.ofMillis(500);
    /** Default retry interval. */
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(1);
    /** Default largest payload: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_SIZE = 1024 * 1024;
    /** Default handoff timeout. */
    public static final Duration DEFAULT_HANDOFF_TIMEOUT = Duration.ofSeconds(60);
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
        Objects.requireNonNull(blockedThreadThreshold, "blockedThreadThreshold");
        Objects.requireNonNull(retryInterval, "retryInterval");
        Objects.requireNonNull(handoffTimeout, "handoffTimeout");
        Objects.requireNonNull(entityRestartBackoff, "entityRestartBackoff");
        Objects.requireNonNull(shardFailureBackoff, "shardFailureBackoff");
        Objects.requireNonNull(rebalance, "rebalance");
        Objects.requireNonNull(passivation, "passivation");
        Objects.requireNonNull(jgroups, "jgroups");
        Objects.requireNonNull(splitBrain, "splitBrain");
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(backpressure, "backpressure");
        entities = Map.copyOf(entities);
    }

    /**
     * The defaults.
     *
     * @return settings with every default
     */
    public static ShardingSettings defaults() {
        return builder().build();
    }

    /**
     * A builder holding the defaults.
     *
     * @return the builder
     */
    public static ShardingSettingsBuilder builder() {
        return new ShardingSettingsBuilder();
    }

    /**
     * A builder holding these settings.
     *
     * @return the builder
     */
    public ShardingSettingsBuilder toBuilder() {
        return new ShardingSettingsBuilder(this);
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
     * The settings of one entity type, or its defaults.
     *
     * @param typeName the type
     * @return its settings
     */
    public EntityTypeSettings entity(String typeName) {
        return entities.getOrDefault(typeName, EntityTypeSettings.DEFAULT);
    }

    /**
     * The idle time before an entity of a type is passivated.
     *
     * @param typeName the type
     * @return the type's own, or the node's; zero for never
     */
    public Duration idleTimeout(String typeName) {
        EntityTypeSettings type = entity(typeName);
        if (type.rememberEntities()) {
            return Duration.ZERO;
        }
        Duration own = type.idleTimeout();
        return own != null ? own : passivation.idleTimeout();
    }

    /**
     * Copy with settings for one entity type.
     *
     * @param typeName the type
     * @param value its settings
     * @return the copy
     */
    public ShardingSettings withEntity(String typeName, EntityTypeSettings value) {
        return toBuilder().entity(typeName, value).build();
    }

    /**
     * Copy with other longest waits between start attempts of entities and between reads of remembered entities.
     *
     * @param entityRestart the longest wait before an entity whose start failed tries again
     * @param shardFailure the longest wait before a failed read of a shard's remembered entities is made again
     * @return the copy
     */
    public ShardingSettings withBackoff(Duration entityRestart, Duration shardFailure) {
        return toBuilder()
                .entityRestartBackoff(entityRestart)
                .shardFailureBackoff(shardFailure)
                .build();
    }

    /**
     * Copy with another cluster name.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withClusterName(String value) {
        return toBuilder().clusterName(value).build();
    }

    /**
     * Copy with another node name, or {@code null} for "bind-address:port".
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withNodeName(@Nullable String value) {
        return toBuilder().nodeName(value).build();
    }

    /**
     * Copy with another default number of shards.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withNumberOfShards(int value) {
        return toBuilder().numberOfShards(value).build();
    }

    /**
     * Copy with another ask timeout.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withAskTimeout(Duration value) {
        return toBuilder().askTimeout(value).build();
    }

    /**
     * Copy with another bound on the messages a region buffers.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBufferSize(int value) {
        return toBuilder().bufferSize(value).build();
    }

    /**
     * Copy with another bound on the bytes a region buffers.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBufferBytes(long value) {
        return toBuilder().bufferBytes(value).build();
    }

    /**
     * Copy with another bound on an entity's mailbox.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withMailboxSize(int value) {
        return toBuilder().mailboxSize(value).build();
    }

    /**
     * Copy with another blocked-thread threshold (zero turns the check off).
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBlockedThreadThreshold(Duration value) {
        return toBuilder().blockedThreadThreshold(value).build();
    }

    /**
     * Copy with another retry interval.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRetryInterval(Duration value) {
        return toBuilder().retryInterval(value).build();
    }

    /**
     * Copy with another largest payload in bytes.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withMaxPayloadSize(int value) {
        return toBuilder().maxPayloadSize(value).build();
    }

    /**
     * Copy with another handoff timeout.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withHandoffTimeout(Duration value) {
        return toBuilder().handoffTimeout(value).build();
    }

    /**
     * Copy with another rebalance settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withRebalance(RebalanceSettings value) {
        return toBuilder().rebalance(value).build();
    }

    /**
     * Copy with another passivation settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withPassivation(PassivationSettings value) {
        return toBuilder().passivation(value).build();
    }

    /**
     * Copy with another JGroups transport settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withJgroups(JgroupsSettings value) {
        return toBuilder().jgroups(value).build();
    }

    /**
     * Copy with another split-brain settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withSplitBrain(SplitBrainSettings value) {
        return toBuilder().splitBrain(value).build();
    }

    /**
     * Copy with another roles, application version or minimum number of members.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withMember(MemberSettings value) {
        return toBuilder().member(value).build();
    }

    /**
     * Copy with another backpressure settings.
     *
     * @param value the new value
     * @return the copy
     */
    public ShardingSettings withBackpressure(BackpressureSettings value) {
        return toBuilder().backpressure(value).build();
    }
}
