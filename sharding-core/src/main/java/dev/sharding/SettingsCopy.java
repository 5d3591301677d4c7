package dev.sharding;

import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A mutable copy of {@link ShardingSettings}, for its {@code withX} methods: change what differs, then build. A new
 * one holds the defaults.
 */
final class SettingsCopy {

    String clusterName = ShardingSettings.DEFAULT_CLUSTER_NAME;

    @Nullable
    String nodeName = null;

    int numberOfShards = ShardingSettings.DEFAULT_NUMBER_OF_SHARDS;

    Duration askTimeout = ShardingSettings.DEFAULT_ASK_TIMEOUT;

    int bufferSize = ShardingSettings.DEFAULT_BUFFER_SIZE;

    Duration retryInterval = ShardingSettings.DEFAULT_RETRY_INTERVAL;

    int maxPayloadSize = ShardingSettings.DEFAULT_MAX_PAYLOAD_SIZE;

    Duration rebalanceInterval = ShardingSettings.DEFAULT_REBALANCE_INTERVAL;

    int rebalanceAbsoluteLimit = ShardingSettings.DEFAULT_REBALANCE_ABSOLUTE_LIMIT;

    Duration rebalanceStableAfter = ShardingSettings.DEFAULT_REBALANCE_STABLE_AFTER;

    long bufferBytes = ShardingSettings.DEFAULT_BUFFER_BYTES;

    int mailboxSize = ShardingSettings.DEFAULT_MAILBOX_SIZE;

    Duration blockedThreadThreshold = ShardingSettings.DEFAULT_BLOCKED_THREAD_THRESHOLD;

    double rebalanceRelativeLimit = ShardingSettings.DEFAULT_REBALANCE_RELATIVE_LIMIT;

    Duration handoffTimeout = ShardingSettings.DEFAULT_HANDOFF_TIMEOUT;

    Duration passivationIdleTimeout = ShardingSettings.DEFAULT_PASSIVATION_IDLE_TIMEOUT;

    int passivationMaxActiveEntities = ShardingSettings.DEFAULT_PASSIVATION_MAX_ACTIVE_ENTITIES;

    int passivationActiveEntityLimit = ShardingSettings.DEFAULT_PASSIVATION_ACTIVE_ENTITY_LIMIT;

    String bindAddress = ShardingSettings.DEFAULT_BIND_ADDRESS;

    int bindPort = ShardingSettings.DEFAULT_BIND_PORT;

    int portRange = ShardingSettings.DEFAULT_PORT_RANGE;

    String initialHosts = ShardingSettings.DEFAULT_INITIAL_HOSTS;

    @Nullable
    String jgroupsConfig = null;

    Map<String, ShardingSettings.EntityTypeSettings> entities = Map.of();

    JgroupsSettings jgroups = JgroupsSettings.defaults();

    SplitBrainSettings splitBrain = SplitBrainSettings.DEFAULT;

    MemberSettings member = MemberSettings.DEFAULT;

    Duration entityRestartBackoff = ShardingSettings.DEFAULT_ENTITY_RESTART_BACKOFF;

    Duration shardFailureBackoff = ShardingSettings.DEFAULT_SHARD_FAILURE_BACKOFF;

    BackpressureSettings backpressure = BackpressureSettings.DEFAULT;

    SettingsCopy() {}

    SettingsCopy(ShardingSettings s) {
        clusterName = s.clusterName();
        nodeName = s.nodeName();
        numberOfShards = s.numberOfShards();
        askTimeout = s.askTimeout();
        bufferSize = s.bufferSize();
        retryInterval = s.retryInterval();
        maxPayloadSize = s.maxPayloadSize();
        rebalanceInterval = s.rebalanceInterval();
        rebalanceAbsoluteLimit = s.rebalanceAbsoluteLimit();
        rebalanceRelativeLimit = s.rebalanceRelativeLimit();
        handoffTimeout = s.handoffTimeout();
        passivationIdleTimeout = s.passivationIdleTimeout();
        passivationMaxActiveEntities = s.passivationMaxActiveEntities();
        bindAddress = s.bindAddress();
        bindPort = s.bindPort();
        portRange = s.portRange();
        initialHosts = s.initialHosts();
        jgroupsConfig = s.jgroupsConfig();
        entities = s.entities();
        jgroups = s.jgroups();
        splitBrain = s.splitBrain();
        member = s.member();
        entityRestartBackoff = s.entityRestartBackoff();
        shardFailureBackoff = s.shardFailureBackoff();
        passivationActiveEntityLimit = s.passivationActiveEntityLimit();
        rebalanceStableAfter = s.rebalanceStableAfter();
        bufferBytes = s.bufferBytes();
        mailboxSize = s.mailboxSize();
        blockedThreadThreshold = s.blockedThreadThreshold();
        backpressure = s.backpressure();
    }

    ShardingSettings build() {
        return new ShardingSettings(
                clusterName,
                nodeName,
                numberOfShards,
                askTimeout,
                bufferSize,
                retryInterval,
                maxPayloadSize,
                rebalanceInterval,
                rebalanceAbsoluteLimit,
                rebalanceRelativeLimit,
                handoffTimeout,
                passivationIdleTimeout,
                passivationMaxActiveEntities,
                bindAddress,
                bindPort,
                portRange,
                initialHosts,
                jgroupsConfig,
                entities,
                jgroups,
                splitBrain,
                member,
                entityRestartBackoff,
                shardFailureBackoff,
                passivationActiveEntityLimit,
                rebalanceStableAfter,
                bufferBytes,
                mailboxSize,
                blockedThreadThreshold,
                backpressure);
    }
}
