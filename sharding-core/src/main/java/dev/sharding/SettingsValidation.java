package dev.sharding;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The rules {@link ShardingSettings#validate()} checks, each naming the setting, its value and the rule. */
final class SettingsValidation {

    private SettingsValidation() {}

    static void check(ShardingSettings s) {
        require(!s.clusterName().isBlank(), "cluster-name", s.clusterName(), "must not be blank");
        require(s.nodeName() == null || !s.nodeName().isBlank(), "node-name", s.nodeName(), "must not be blank");
        require(s.numberOfShards() > 0, "number-of-shards", s.numberOfShards(), "must be positive");
        require(positive(s.askTimeout()), "ask-timeout", s.askTimeout(), "must be positive");
        require(s.bufferSize() > 0, "buffer-size", s.bufferSize(), "must be positive");
        require(s.bufferBytes() > 0, "buffer-bytes", s.bufferBytes(), "must be positive");
        require(s.mailboxSize() > 0, "mailbox-size", s.mailboxSize(), "must be positive");
        require(
                !s.blockedThreadThreshold().isNegative(),
                "blocked-thread-threshold",
                s.blockedThreadThreshold(),
                "must be zero (no check) or positive");
        require(positive(s.retryInterval()), "retry-interval", s.retryInterval(), "must be positive");
        require(s.maxPayloadSize() >= 1024, "max-payload-size", s.maxPayloadSize(), "must be at least 1024 bytes");
        require(positive(s.rebalanceInterval()), "rebalance-interval", s.rebalanceInterval(), "must be positive");
        require(
                !s.rebalanceStableAfter().isNegative(),
                "rebalance.stable-after",
                s.rebalanceStableAfter(),
                "must be zero (no wait) or positive");
        require(
                s.rebalanceAbsoluteLimit() > 0,
                "rebalance.absolute-limit",
                s.rebalanceAbsoluteLimit(),
                "must be positive");
        require(
                s.rebalanceRelativeLimit() > 0 && s.rebalanceRelativeLimit() <= 1,
                "rebalance.relative-limit",
                s.rebalanceRelativeLimit(),
                "must be more than 0 and at most 1");
        require(positive(s.handoffTimeout()), "handoff-timeout", s.handoffTimeout(), "must be positive");
        require(
                !s.passivationIdleTimeout().isNegative(),
                "passivation.idle-timeout",
                s.passivationIdleTimeout(),
                "must be zero (never) or positive");
        require(
                s.passivationMaxActiveEntities() >= 0,
                "passivation.max-active-entities",
                s.passivationMaxActiveEntities(),
                "must be zero (no limit) or positive");
        require(
                s.passivationActiveEntityLimit() > 0,
                "passivation.active-entity-limit",
                s.passivationActiveEntityLimit(),
                "must be positive");
        require(!s.bindAddress().isBlank(), "jgroups.bind-address", s.bindAddress(), "must not be blank");
        require(
                s.bindPort() > 0 && s.bindPort() < 65536,
                "jgroups.bind-port",
                s.bindPort(),
                "must be a port (1-65535)");
        require(
                s.portRange() >= 0 && s.bindPort() + s.portRange() < 65536,
                "jgroups.port-range",
                s.portRange(),
                "must be at least 0 and keep bind-port + port-range under 65536");
        require(!s.initialHosts().isBlank(), "jgroups.initial-hosts", s.initialHosts(), "must not be blank");
        s.jgroups().validate(s.bindPort());
        s.entities().forEach((type, settings) -> {
            require(
                    settings.numberOfShards() >= 0,
                    "entities." + type + ".number-of-shards",
                    settings.numberOfShards(),
                    "must be positive, or 0 for the default");
            require(
                    settings.idleTimeout() == null || !settings.idleTimeout().isNegative(),
                    "entities." + type + ".passivation.idle-timeout",
                    settings.idleTimeout(),
                    "must be zero (never) or positive");
            require(
                    settings.role() == null
                            || MemberSettings.ROLE.matcher(settings.role()).matches(),
                    "entities." + type + ".role",
                    settings.role(),
                    "a role is 1 to 100 characters of [A-Za-z0-9._-]");
        });
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

    private static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    private static void require(boolean ok, String name, @Nullable Object value, String rule) {
        InvalidSettingException.require(ok, name, value, rule);
    }
}
