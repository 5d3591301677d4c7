package dev.sharding;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Builds {@link ShardingSettings}: from {@link ShardingSettings#builder()} every setting starts at its default, from
 * {@link ShardingSettings#toBuilder()} at the value of those settings. Not thread-safe.
 */
public final class ShardingSettingsBuilder {

    private String clusterName = ShardingSettings.DEFAULT_CLUSTER_NAME;

    private @Nullable String nodeName = null;

    private int numberOfShards = ShardingSettings.DEFAULT_NUMBER_OF_SHARDS;

    private Duration askTimeout = ShardingSettings.DEFAULT_ASK_TIMEOUT;

    private int bufferSize = ShardingSettings.DEFAULT_BUFFER_SIZE;

    private long bufferBytes = ShardingSettings.DEFAULT_BUFFER_BYTES;

    private int mailboxSize = ShardingSettings.DEFAULT_MAILBOX_SIZE;

    private Duration blockedThreadThreshold = ShardingSettings.DEFAULT_BLOCKED_THREAD_THRESHOLD;

    private Duration retryInterval = ShardingSettings.DEFAULT_RETRY_INTERVAL;

    private int maxPayloadSize = ShardingSettings.DEFAULT_MAX_PAYLOAD_SIZE;

    private Duration handoffTimeout = ShardingSettings.DEFAULT_HANDOFF_TIMEOUT;

    private Duration entityRestartBackoff = ShardingSettings.DEFAULT_ENTITY_RESTART_BACKOFF;

    private Duration shardFailureBackoff = ShardingSettings.DEFAULT_SHARD_FAILURE_BACKOFF;

    private RebalanceSettings rebalance = RebalanceSettings.DEFAULT;

    private PassivationSettings passivation = PassivationSettings.DEFAULT;

    private JgroupsSettings jgroups = JgroupsSettings.defaults();

    private SplitBrainSettings splitBrain = SplitBrainSettings.DEFAULT;

    private MemberSettings member = MemberSettings.DEFAULT;

    private BackpressureSettings backpressure = BackpressureSettings.DEFAULT;

    private final Map<String, EntityTypeSettings> entities = new HashMap<>();

    ShardingSettingsBuilder() {}

    ShardingSettingsBuilder(ShardingSettings s) {
        clusterName = s.clusterName();
        nodeName = s.nodeName();
        numberOfShards = s.numberOfShards();
        askTimeout = s.askTimeout();
        bufferSize = s.bufferSize();
        bufferBytes = s.bufferBytes();
        mailboxSize = s.mailboxSize();
        blockedThreadThreshold = s.blockedThreadThreshold();
        retryInterval = s.retryInterval();
        maxPayloadSize = s.maxPayloadSize();
        handoffTimeout = s.handoffTimeout();
        entityRestartBackoff = s.entityRestartBackoff();
        shardFailureBackoff = s.shardFailureBackoff();
        rebalance = s.rebalance();
        passivation = s.passivation();
        jgroups = s.jgroups();
        splitBrain = s.splitBrain();
        member = s.member();
        backpressure = s.backpressure();
        entities.putAll(s.entities());
    }

    /**
     * The cluster name.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder clusterName(String value) {
        this.clusterName = value;
        return this;
    }

    /**
     * The node name, or {@code null} for "bind-address:port".
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder nodeName(@Nullable String value) {
        this.nodeName = value;
        return this;
    }

    /**
     * The default number of shards.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder numberOfShards(int value) {
        this.numberOfShards = value;
        return this;
    }

    /**
     * The ask timeout.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder askTimeout(Duration value) {
        this.askTimeout = value;
        return this;
    }

    /**
     * The bound on the messages a region buffers.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder bufferSize(int value) {
        this.bufferSize = value;
        return this;
    }

    /**
     * The bound on the bytes a region buffers.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder bufferBytes(long value) {
        this.bufferBytes = value;
        return this;
    }

    /**
     * The bound on an entity's mailbox.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder mailboxSize(int value) {
        this.mailboxSize = value;
        return this;
    }

    /**
     * The blocked-thread threshold (zero turns the check off).
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder blockedThreadThreshold(Duration value) {
        this.blockedThreadThreshold = value;
        return this;
    }

    /**
     * The retry interval.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder retryInterval(Duration value) {
        this.retryInterval = value;
        return this;
    }

    /**
     * The largest payload in bytes.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder maxPayloadSize(int value) {
        this.maxPayloadSize = value;
        return this;
    }

    /**
     * The handoff timeout.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder handoffTimeout(Duration value) {
        this.handoffTimeout = value;
        return this;
    }

    /**
     * The longest wait before an entity whose start failed tries again.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder entityRestartBackoff(Duration value) {
        this.entityRestartBackoff = value;
        return this;
    }

    /**
     * The longest wait before a failed read of a shard's remembered entities is made again.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder shardFailureBackoff(Duration value) {
        this.shardFailureBackoff = value;
        return this;
    }

    /**
     * The rebalance settings.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder rebalance(RebalanceSettings value) {
        this.rebalance = value;
        return this;
    }

    /**
     * The passivation settings.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder passivation(PassivationSettings value) {
        this.passivation = value;
        return this;
    }

    /**
     * The JGroups transport settings.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder jgroups(JgroupsSettings value) {
        this.jgroups = value;
        return this;
    }

    /**
     * The split-brain settings.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder splitBrain(SplitBrainSettings value) {
        this.splitBrain = value;
        return this;
    }

    /**
     * The roles, application version or minimum number of members.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder member(MemberSettings value) {
        this.member = value;
        return this;
    }

    /**
     * The backpressure settings.
     *
     * @param value the new value
     * @return this builder
     */
    public ShardingSettingsBuilder backpressure(BackpressureSettings value) {
        this.backpressure = value;
        return this;
    }

    /**
     * The settings of one entity type, replacing any it had.
     *
     * @param typeName the type
     * @param value its settings
     * @return this builder
     */
    public ShardingSettingsBuilder entity(String typeName, EntityTypeSettings value) {
        entities.put(typeName, value);
        return this;
    }

    /**
     * The settings, not yet validated.
     *
     * @return the settings
     */
    public ShardingSettings build() {
        return new ShardingSettings(
                clusterName,
                nodeName,
                numberOfShards,
                askTimeout,
                bufferSize,
                bufferBytes,
                mailboxSize,
                blockedThreadThreshold,
                retryInterval,
                maxPayloadSize,
                handoffTimeout,
                entityRestartBackoff,
                shardFailureBackoff,
                rebalance,
                passivation,
                jgroups,
                splitBrain,
                member,
                backpressure,
                entities);
    }
}
