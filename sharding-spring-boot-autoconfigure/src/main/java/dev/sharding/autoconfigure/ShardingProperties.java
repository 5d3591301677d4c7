package dev.sharding.autoconfigure;

import dev.sharding.InvalidSettingException;
import dev.sharding.MemberSettings;
import dev.sharding.RebalanceSettings;
import dev.sharding.ShardingSettings;
import dev.sharding.ShardingSettingsBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of a sharding node, bound from {@code sharding.*}. Every default is the core's default
 * (the {@code ShardingSettings.DEFAULT_*} constants), so that a node configured here behaves like one built in plain
 * Java.
 */
@ConfigurationProperties("sharding")
public class ShardingProperties {

    /**
     * Whether to run a sharding node in this application.
     */
    private boolean enabled = true;

    /**
     * Name of the cluster to join. Nodes with the same cluster name that discover each other form one cluster.
     */
    private String clusterName = ShardingSettings.DEFAULT_CLUSTER_NAME;

    /**
     * Name of this node in the cluster. When not set, the node is named after its bind address and the port it
     * took, for example "127.0.0.1:7800".
     */
    private @Nullable String nodeName;

    /**
     * Number of shards of each entity type whose annotation and entity settings do not name one. Must be the same on
     * every node and must not change while the cluster runs; about ten times the largest planned number of nodes.
     */
    private int numberOfShards = ShardingSettings.DEFAULT_NUMBER_OF_SHARDS;

    /**
     * How long an ask waits for the entity's reply when the caller gives no timeout.
     */
    private Duration askTimeout = ShardingSettings.DEFAULT_ASK_TIMEOUT;

    /**
     * Most messages a region holds per entity type while it waits to learn where their shards live.
     */
    private int bufferSize = ShardingSettings.DEFAULT_BUFFER_SIZE;

    /**
     * Most bytes of messages from other nodes a region holds per entity type while it waits to learn where their
     * shards live. Beyond it, asks fail with BufferFullException and tells are dropped.
     */
    private DataSize bufferBytes = DataSize.ofBytes(ShardingSettings.DEFAULT_BUFFER_BYTES);

    /**
     * Most messages that may wait in one entity's mailbox. Beyond it, asks fail with BufferFullException and tells are
     * dropped and counted. The messages the entity's run under way has taken (at most 32) count until the run ends, so
     * a message may be refused with up to 32 fewer waiting.
     */
    private int mailboxSize = ShardingSettings.DEFAULT_MAILBOX_SIZE;

    /**
     * How long one piece of work may hold one of the node's own threads (its control thread, the transport's threads)
     * before a warning with the thread's stack is logged and counted. Zero turns the check off.
     */
    private Duration blockedThreadThreshold = ShardingSettings.DEFAULT_BLOCKED_THREAD_THRESHOLD;

    /**
     * How often a region repeats a registration or shard-home request that got no answer.
     */
    private Duration retryInterval = ShardingSettings.DEFAULT_RETRY_INTERVAL;

    /**
     * Largest encoded message or reply that may cross the network. Larger ones are rejected before they are sent.
     */
    private DataSize maxPayloadSize = DataSize.ofBytes(ShardingSettings.DEFAULT_MAX_PAYLOAD_SIZE);

    /**
     * How often the coordinator considers moving shards from the most to the least loaded nodes, when no node joined
     * or left (which starts a round once the membership is stable: rebalance.stable-after).
     */
    private Duration rebalanceInterval = RebalanceSettings.DEFAULT_INTERVAL;

    /**
     * Limits of one rebalance round.
     */
    @NestedConfigurationProperty
    private final RebalanceProperties rebalance = new RebalanceProperties();

    /**
     * Longest time a shard handoff may take, from the coordinator's decision until the shard's entities have stopped;
     * entities still running then are stopped forcibly. Also bounds how long a leaving node hands off its shards.
     */
    private Duration handoffTimeout = ShardingSettings.DEFAULT_HANDOFF_TIMEOUT;

    /**
     * Where entity state, shard epochs and remembered entities are kept.
     */
    @NestedConfigurationProperty
    private final StoreProperties store = new StoreProperties();

    /**
     * How a network partition is resolved: which side keeps running, and how long a node may serve without its
     * coordinator.
     */
    @NestedConfigurationProperty
    private final SplitBrainProperties splitBrain = new SplitBrainProperties();

    /**
     * When entities are passivated.
     */
    @NestedConfigurationProperty
    private final PassivationProperties passivation = new PassivationProperties();

    /**
     * How much is queued toward a member that reads slowly, how long senders wait for room there, and when such a
     * member is suspected.
     */
    @NestedConfigurationProperty
    private final BackpressureProperties backpressure = new BackpressureProperties();

    /**
     * Further classes that may cross the network as messages or replies, besides the parameter and return types of
     * the entities' handler methods.
     */
    private List<Class<?>> messageTypes = new ArrayList<>();

    /**
     * Settings per entity type, keyed by the entity type name.
     */
    private Map<String, EntityTypeProperties> entities = new LinkedHashMap<>();

    /**
     * Properties of the JGroups transport.
     */
    @NestedConfigurationProperty
    private final JgroupsProperties jgroups = new JgroupsProperties();

    /**
     * The live dashboard page.
     */
    @NestedConfigurationProperty
    private final DashboardProperties dashboard = new DashboardProperties();

    /**
     * Observations of messages, traced across nodes.
     */
    @NestedConfigurationProperty
    private final ObservationProperties observation = new ObservationProperties();

    /**
     * The roles of this node. An entity type with a role (sharding.entities.<type>.role) is hosted only on nodes that
     * have that role; the other nodes route its messages to them.
     */
    private Set<String> roles = new LinkedHashSet<>();

    /**
     * The version of the application this node runs, compared as versions (1.10 is newer than 1.9, 2.0.0-RC1 older
     * than 2.0.0). While members run several versions (a rolling update), new shards go only to the newest and
     * nothing is rebalanced, so each shard moves from an old node to a new one once. Empty means unversioned.
     */
    private @Nullable String appVersion;

    /**
     * How many members must have joined before the first shard is placed, so that the first shards spread over all of
     * them instead of landing on the first node and being moved later. Messages wait in the buffers meanwhile.
     */
    private int minNrOfMembers = 1;

    /**
     * Longest wait between attempts to start an entity whose creation or state read failed. The first attempt again
     * comes after 100 ms and the wait doubles up to this; the entity's messages wait meanwhile, at most buffer-size.
     */
    private Duration entityRestartBackoff = ShardingSettings.DEFAULT_ENTITY_RESTART_BACKOFF;

    /**
     * Longest wait between attempts to read the remembered entities of a shard that started on this node, when the
     * read fails. The first attempt again comes after 100 ms and the wait doubles up to this.
     */
    private Duration shardFailureBackoff = ShardingSettings.DEFAULT_SHARD_FAILURE_BACKOFF;

    /**
     * Longest wait between attempts to start an entity.
     *
     * @return the wait
     */
    public Duration getEntityRestartBackoff() {
        return this.entityRestartBackoff;
    }

    /**
     * Sets the longest wait between attempts to start an entity.
     *
     * @param entityRestartBackoff the wait
     */
    public void setEntityRestartBackoff(Duration entityRestartBackoff) {
        this.entityRestartBackoff = entityRestartBackoff;
    }

    /**
     * Longest wait between attempts to read a shard's remembered entities.
     *
     * @return the wait
     */
    public Duration getShardFailureBackoff() {
        return this.shardFailureBackoff;
    }

    /**
     * Sets the longest wait between attempts to read a shard's remembered entities.
     *
     * @param shardFailureBackoff the wait
     */
    public void setShardFailureBackoff(Duration shardFailureBackoff) {
        this.shardFailureBackoff = shardFailureBackoff;
    }

    /**
     * The roles of this node.
     *
     * @return the roles
     */
    public Set<String> getRoles() {
        return this.roles;
    }

    /**
     * Sets the roles of this node.
     *
     * @param roles the roles
     */
    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }

    /**
     * The application version.
     *
     * @return the version, or {@code null} if unversioned
     */
    public @Nullable String getAppVersion() {
        return this.appVersion;
    }

    /**
     * Sets the application version.
     *
     * @param appVersion the version
     */
    public void setAppVersion(@Nullable String appVersion) {
        this.appVersion = appVersion;
    }

    /**
     * How many members must join before shards are placed.
     *
     * @return the number, at least 1
     */
    public int getMinNrOfMembers() {
        return this.minNrOfMembers;
    }

    /**
     * Sets how many members must join before shards are placed.
     *
     * @param minNrOfMembers the number, at least 1
     */
    public void setMinNrOfMembers(int minNrOfMembers) {
        this.minNrOfMembers = minNrOfMembers;
    }

    /**
     * Whether to run a sharding node.
     *
     * @return true unless disabled
     */
    public boolean isEnabled() {
        return this.enabled;
    }

    /**
     * Sets whether to run a sharding node.
     *
     * @param enabled whether to run one
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * The cluster name.
     *
     * @return the cluster name
     */
    public String getClusterName() {
        return this.clusterName;
    }

    /**
     * Sets the cluster name.
     *
     * @param clusterName the cluster name
     */
    public void setClusterName(String clusterName) {
        this.clusterName = clusterName;
    }

    /**
     * The node name.
     *
     * @return the node name, or {@code null} to derive it from the bind address and port
     */
    public @Nullable String getNodeName() {
        return this.nodeName;
    }

    /**
     * Sets the node name.
     *
     * @param nodeName the node name, or {@code null} to derive it
     */
    public void setNodeName(@Nullable String nodeName) {
        this.nodeName = nodeName;
    }

    /**
     * The default number of shards per entity type.
     *
     * @return the number of shards
     */
    public int getNumberOfShards() {
        return this.numberOfShards;
    }

    /**
     * Sets the default number of shards per entity type.
     *
     * @param numberOfShards the number of shards
     */
    public void setNumberOfShards(int numberOfShards) {
        this.numberOfShards = numberOfShards;
    }

    /**
     * The default ask timeout.
     *
     * @return the timeout
     */
    public Duration getAskTimeout() {
        return this.askTimeout;
    }

    /**
     * Sets the default ask timeout.
     *
     * @param askTimeout the timeout
     */
    public void setAskTimeout(Duration askTimeout) {
        this.askTimeout = askTimeout;
    }

    /**
     * The region buffer size.
     *
     * @return the most buffered messages per entity type
     */
    public int getBufferSize() {
        return this.bufferSize;
    }

    /**
     * Sets the region buffer size.
     *
     * @param bufferSize the most buffered messages per entity type
     */
    public void setBufferSize(int bufferSize) {
        this.bufferSize = bufferSize;
    }

    /**
     * The bound on the bytes a region buffers.
     *
     * @return the most bytes of buffered messages from other nodes per entity type
     */
    public DataSize getBufferBytes() {
        return this.bufferBytes;
    }

    /**
     * Sets the bound on the bytes a region buffers.
     *
     * @param bufferBytes the most bytes of buffered messages from other nodes per entity type
     */
    public void setBufferBytes(DataSize bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    /**
     * The bound on an entity's mailbox.
     *
     * @return the most messages waiting for one entity
     */
    public int getMailboxSize() {
        return this.mailboxSize;
    }

    /**
     * Sets the bound on an entity's mailbox.
     *
     * @param mailboxSize the most messages waiting for one entity
     */
    public void setMailboxSize(int mailboxSize) {
        this.mailboxSize = mailboxSize;
    }

    /**
     * The blocked-thread threshold.
     *
     * @return how long one piece of work may hold a thread of the node before it is reported
     */
    public Duration getBlockedThreadThreshold() {
        return this.blockedThreadThreshold;
    }

    /**
     * Sets the blocked-thread threshold.
     *
     * @param blockedThreadThreshold how long one piece of work may hold a thread of the node; zero for no check
     */
    public void setBlockedThreadThreshold(Duration blockedThreadThreshold) {
        this.blockedThreadThreshold = blockedThreadThreshold;
    }

    /**
     * The retry interval.
     *
     * @return the interval
     */
    public Duration getRetryInterval() {
        return this.retryInterval;
    }

    /**
     * Sets the retry interval.
     *
     * @param retryInterval the interval
     */
    public void setRetryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
    }

    /**
     * The largest payload.
     *
     * @return the size
     */
    public DataSize getMaxPayloadSize() {
        return this.maxPayloadSize;
    }

    /**
     * Sets the largest payload.
     *
     * @param maxPayloadSize the size
     */
    public void setMaxPayloadSize(DataSize maxPayloadSize) {
        this.maxPayloadSize = maxPayloadSize;
    }

    /**
     * The extra message types.
     *
     * @return the classes, mutable
     */
    public Duration getRebalanceInterval() {
        return this.rebalanceInterval;
    }

    public void setRebalanceInterval(Duration rebalanceInterval) {
        this.rebalanceInterval = rebalanceInterval;
    }

    public RebalanceProperties getRebalance() {
        return this.rebalance;
    }

    public Duration getHandoffTimeout() {
        return this.handoffTimeout;
    }

    public void setHandoffTimeout(Duration handoffTimeout) {
        this.handoffTimeout = handoffTimeout;
    }

    public StoreProperties getStore() {
        return this.store;
    }

    public PassivationProperties getPassivation() {
        return this.passivation;
    }

    public List<Class<?>> getMessageTypes() {
        return this.messageTypes;
    }

    /**
     * Sets the extra message types.
     *
     * @param messageTypes the classes
     */
    public void setMessageTypes(List<Class<?>> messageTypes) {
        this.messageTypes = messageTypes;
    }

    /**
     * The settings per entity type.
     *
     * @return the settings by type name, mutable
     */
    public Map<String, EntityTypeProperties> getEntities() {
        return this.entities;
    }

    /**
     * Sets the settings per entity type.
     *
     * @param entities the settings by type name
     */
    public void setEntities(Map<String, EntityTypeProperties> entities) {
        this.entities = entities;
    }

    /**
     * The split-brain properties.
     *
     * @return the properties under {@code sharding.split-brain}
     */
    public SplitBrainProperties getSplitBrain() {
        return this.splitBrain;
    }

    /**
     * The backpressure properties.
     *
     * @return the properties under {@code sharding.backpressure}
     */
    public BackpressureProperties getBackpressure() {
        return this.backpressure;
    }

    /**
     * The JGroups transport properties.
     *
     * @return the properties under {@code sharding.jgroups}
     */
    public JgroupsProperties getJgroups() {
        return this.jgroups;
    }

    /**
     * The dashboard properties.
     *
     * @return the properties under {@code sharding.dashboard}
     */
    public DashboardProperties getDashboard() {
        return this.dashboard;
    }

    /**
     * The observation properties.
     *
     * @return the properties under {@code sharding.observation}
     */
    public ObservationProperties getObservation() {
        return this.observation;
    }

    /**
     * Turns these properties into core settings and checks them: each group of properties maps to its group of
     * settings, property by property.
     *
     * @return the validated settings
     * @throws InvalidSettingException naming the first property whose value is out of range
     */
    public ShardingSettings toSettings() {
        long payload = this.maxPayloadSize.toBytes();
        if (payload > Integer.MAX_VALUE) {
            throw new InvalidSettingException(
                    "max-payload-size", this.maxPayloadSize, "must be at most " + Integer.MAX_VALUE + " bytes");
        }
        PropertyMapper map = PropertyMapper.get();
        // From the builder's defaults, so that settings the core adds later keep their core defaults until they get
        // properties of their own.
        ShardingSettingsBuilder settings = ShardingSettings.builder();
        map.from(this.clusterName).to(settings::clusterName);
        map.from(this.nodeName).to(settings::nodeName);
        map.from(this.numberOfShards).to(settings::numberOfShards);
        map.from(this.askTimeout).to(settings::askTimeout);
        map.from(this.bufferSize).to(settings::bufferSize);
        map.from(this.bufferBytes).as(DataSize::toBytes).to(settings::bufferBytes);
        map.from(this.mailboxSize).to(settings::mailboxSize);
        map.from(this.blockedThreadThreshold).to(settings::blockedThreadThreshold);
        map.from(this.retryInterval).to(settings::retryInterval);
        map.from(payload).asInt(Long::intValue).to(settings::maxPayloadSize);
        map.from(this.handoffTimeout).to(settings::handoffTimeout);
        map.from(this.entityRestartBackoff).to(settings::entityRestartBackoff);
        map.from(this.shardFailureBackoff).to(settings::shardFailureBackoff);
        map.from(() -> this.rebalance.toSettings(this.rebalanceInterval)).to(settings::rebalance);
        map.from(this.passivation::toSettings).to(settings::passivation);
        map.from(this.jgroups::toSettings).to(settings::jgroups);
        map.from(this.splitBrain::toSettings).to(settings::splitBrain);
        map.from(this::memberSettings).to(settings::member);
        map.from(this.backpressure::toSettings).to(settings::backpressure);
        this.entities.forEach((type, entity) -> settings.entity(type, entity.toSettings(type)));
        return settings.build().validate();
    }

    private MemberSettings memberSettings() {
        Set<String> trimmed =
                this.roles.stream().map(String::trim).filter(r -> !r.isEmpty()).collect(Collectors.toSet());
        return new MemberSettings(trimmed, this.appVersion == null ? "" : this.appVersion.trim(), this.minNrOfMembers);
    }
}
