package dev.sharding;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The rules {@link ShardingSettings#validate()} checks, each naming the setting, its value and the rule. The rules of
 * a group of settings live with the group's record ({@link RebalanceSettings}, {@link JgroupsSettings}, ...).
 */
final class SettingsValidation {

    private SettingsValidation() {}

    static void check(ShardingSettings s) {
        require(!s.clusterName().isBlank(), "cluster-name", s.clusterName(), "must not be blank");
        require(s.nodeName() == null || !s.nodeName().isBlank(), "node-name", s.nodeName(), "must not be blank");
        require(s.numberOfShards() > 0, "number-of-shards", s.numberOfShards(), "must be positive");
        require(positive(s.askTimeout()), "ask-timeout", s.askTimeout(), "must be positive");
        require(s.bufferSize() > 0, "buffer-size", s.bufferSize(), "must be positive");
        require(s.bufferBytes() > 0, "buffer-bytes", s.bufferBytes(), "must be positive");
        require(
                s.mailboxSize() > 0 && s.mailboxSize() <= ShardingSettings.MAX_MAILBOX_SIZE,
                "mailbox-size",
                s.mailboxSize(),
                "must be between 1 and " + ShardingSettings.MAX_MAILBOX_SIZE);
        require(
                !s.blockedThreadThreshold().isNegative(),
                "blocked-thread-threshold",
                s.blockedThreadThreshold(),
                "must be zero (no check) or positive");
        require(positive(s.retryInterval()), "retry-interval", s.retryInterval(), "must be positive");
        require(s.maxPayloadSize() >= 1024, "max-payload-size", s.maxPayloadSize(), "must be at least 1024 bytes");
        s.rebalance().validate();
        require(positive(s.handoffTimeout()), "handoff-timeout", s.handoffTimeout(), "must be positive");
        s.passivation().validate();
        s.jgroups().validate();
        s.entities().forEach((type, settings) -> settings.validate(type));
        s.splitBrain().validate();
        s.member().validate();
        s.backpressure().validate();
        require(
                positive(s.entityRestartBackoff()),
                "entity-restart-backoff",
                s.entityRestartBackoff(),
                "must be positive");
        require(
                positive(s.shardFailureBackoff()),
                "shard-failure-backoff",
                s.shardFailureBackoff(),
                "must be positive");
    }

    static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    static void require(boolean ok, String name, @Nullable Object value, String rule) {
        InvalidSettingException.require(ok, name, value, rule);
    }
}
