package dev.sharding.autoconfigure;

import dev.sharding.InvalidSettingException;
import dev.sharding.RebalanceSettings;
import dev.sharding.ShardingSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of a sharding node, bound from {@code sharding.*}. Every default is the core's default
 * (the {@code ShardingSettings.DEFAULT_*} constants), so that a node configured here behaves like one built in plain
 * Java.
 *
 * <p>Strict: an unknown {@code sharding.*} property fails the startup ({@link UnknownShardingPropertyFailureAnalyzer});
 * environment variables and system properties are not checked (Kubernetes sets {@code SHARDING_...} per service).
 */
@ConfigurationProperties(prefix = "sharding", ignoreUnknownFields = false)
public class ShardingProperties {

    /** Whether to run a sharding node in this application. */
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

    /** How long an ask waits for the entity's reply when the caller gives no timeout. */
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

    /** The test mode, set by the test kit. */
    @NestedConfigurationProperty
    private final TestModeProperties test = new TestModeProperties();

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

    public Duration getEntityRestartBackoff() {
        return this.entityRestartBackoff;
    }

    public void setEntityRestartBackoff(Duration entityRestartBackoff) {
        this.entityRestartBackoff = entityRestartBackoff;
    }

    public Duration getShardFailureBackoff() {
        return this.shardFailureBackoff;
    }

    public void setShardFailureBackoff(Duration shardFailureBackoff) {
        this.shardFailureBackoff = shardFailureBackoff;
    }

    public Set<String> getRoles() {
        return this.roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }

    public @Nullable String getAppVersion() {
        return this.appVersion;
    }

    public void setAppVersion(@Nullable String appVersion) {
        this.appVersion = appVersion;
    }

    public int getMinNrOfMembers() {
        return this.minNrOfMembers;
    }

    public void setMinNrOfMembers(int minNrOfMembers) {
        this.minNrOfMembers = minNrOfMembers;
    }

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getClusterName() {
        return this.clusterName;
    }

    public void setClusterName(String clusterName) {
        this.clusterName = clusterName;
    }

    public @Nullable String getNodeName() {
        return this.nodeName;
    }

    public void setNodeName(@Nullable String nodeName) {
        this.nodeName = nodeName;
    }

    public int getNumberOfShards() {
        return this.numberOfShards;
    }

    public void setNumberOfShards(int numberOfShards) {
        this.numberOfShards = numberOfShards;
    }

    public Duration getAskTimeout() {
        return this.askTimeout;
    }

    public void setAskTimeout(Duration askTimeout) {
        this.askTimeout = askTimeout;
    }

    public int getBufferSize() {
        return this.bufferSize;
    }

    public void setBufferSize(int bufferSize) {
        this.bufferSize = bufferSize;
    }

    public DataSize getBufferBytes() {
        return this.bufferBytes;
    }

    public void setBufferBytes(DataSize bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    public int getMailboxSize() {
        return this.mailboxSize;
    }

    public void setMailboxSize(int mailboxSize) {
        this.mailboxSize = mailboxSize;
    }

    public Duration getBlockedThreadThreshold() {
        return this.blockedThreadThreshold;
    }

    public void setBlockedThreadThreshold(Duration blockedThreadThreshold) {
        this.blockedThreadThreshold = blockedThreadThreshold;
    }

    public Duration getRetryInterval() {
        return this.retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
    }

    public DataSize getMaxPayloadSize() {
        return this.maxPayloadSize;
    }

    public void setMaxPayloadSize(DataSize maxPayloadSize) {
        this.maxPayloadSize = maxPayloadSize;
    }

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

    public void setMessageTypes(List<Class<?>> messageTypes) {
        this.messageTypes = messageTypes;
    }

    public Map<String, EntityTypeProperties> getEntities() {
        return this.entities;
    }

    public void setEntities(Map<String, EntityTypeProperties> entities) {
        this.entities = entities;
    }

    public SplitBrainProperties getSplitBrain() {
        return this.splitBrain;
    }

    public BackpressureProperties getBackpressure() {
        return this.backpressure;
    }

    public JgroupsProperties getJgroups() {
        return this.jgroups;
    }

    public DashboardProperties getDashboard() {
        return this.dashboard;
    }

    public TestModeProperties getTest() {
        return this.test;
    }

    public ObservationProperties getObservation() {
        return this.observation;
    }

    /**
     * Turns these properties into core settings, group by group ({@link ShardingSettingsMapping}), and checks them.
     *
     * @return the validated settings; an {@link InvalidSettingException} names the first property out of range
     */
    public ShardingSettings toSettings() {
        return ShardingSettingsMapping.toSettings(this);
    }
}
