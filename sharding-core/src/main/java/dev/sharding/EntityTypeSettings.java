package dev.sharding;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of one entity type, the properties {@code sharding.entities.<type>.*}. Build with {@link #builder()}, or
 * change a copy with {@link #toBuilder()}; {@link #DEFAULT} holds the defaults.
 *
 * <pre>{@code
 * EntityTypeSettings cart = EntityTypeSettings.builder().numberOfShards(30).rememberEntities(true).build();
 * }</pre>
 *
 * @param numberOfShards the number of shards, or 0 for the node's default
 * @param proxyOnly whether this node only routes messages of the type and hosts none of its entities
 * @param idleTimeout the type's idle time before passivation (zero for never), or {@code null} for the node's
 * @param rememberEntities whether the ids of live entities are stored and the entities started again, without a
 *     message, wherever and whenever their shard starts; such entities are never passivated for idleness
 * @param role the role a node must have to host the type ({@link MemberSettings#roles()}); the others are proxies of
 *     it; {@code null} for every node
 * @param appliedMessages how many ids of applied messages each entity keeps, and for how long, so that a retry with
 *     the same id applies once ({@link ShardRegion#ask(String, Object, Class, Duration, String)})
 * @param passivation how live entities are chosen for passivation when there are too many
 * @param activeEntityLimit the type's own limit of live entities on this node, whatever its strategy (zero for none),
 *     in place of its share of the node's {@link PassivationSettings#activeEntityLimit()}; {@code null} for the share
 *     (limit strategies) or no limit ({@link PassivationStrategy#IDLE})
 * @param snapshotEvery for an event-sourced type ({@link EventSourcedState}), how many events apart its entities'
 *     snapshots are stored, so that a recovery reads at most that many events; zero for none
 */
public record EntityTypeSettings(
        int numberOfShards,
        boolean proxyOnly,
        @Nullable Duration idleTimeout,
        boolean rememberEntities,
        @Nullable String role,
        AppliedMessageWindow appliedMessages,
        PassivationStrategy passivation,
        @Nullable Integer activeEntityLimit,
        int snapshotEvery) {

    /** Default number of events between two snapshots of an event-sourced entity. */
    public static final int DEFAULT_SNAPSHOT_EVERY = 100;

    /** The defaults: the node's number of shards and idle timeout, hosting, not remembering, no role. */
    public static final EntityTypeSettings DEFAULT = new Builder().build();

    /** Checks the values. */
    public EntityTypeSettings {
        Objects.requireNonNull(appliedMessages, "appliedMessages");
        Objects.requireNonNull(passivation, "passivation");
    }

    /**
     * A builder holding the defaults.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these settings.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return new Builder()
                .numberOfShards(numberOfShards)
                .proxyOnly(proxyOnly)
                .idleTimeout(idleTimeout)
                .rememberEntities(rememberEntities)
                .role(role)
                .appliedMessages(appliedMessages)
                .passivation(passivation)
                .activeEntityLimit(activeEntityLimit)
                .snapshotEvery(snapshotEvery);
    }

    /** Checks the rules that depend on no other setting, naming each {@code entities.<type>.<setting>}. */
    void validate(String type) {
        SettingsValidation.require(
                numberOfShards >= 0,
                "entities." + type + ".number-of-shards",
                numberOfShards,
                "must be positive, or 0 for the default");
        SettingsValidation.require(
                idleTimeout == null || !idleTimeout.isNegative(),
                "entities." + type + ".idle-timeout",
                idleTimeout,
                "must be zero (never) or positive");
        SettingsValidation.require(
                role == null || MemberSettings.ROLE.matcher(role).matches(),
                "entities." + type + ".role",
                role,
                "a role is 1 to 100 characters of [A-Za-z0-9._-]");
        SettingsValidation.require(
                activeEntityLimit == null || activeEntityLimit >= 0,
                "entities." + type + ".passivation.active-entity-limit",
                activeEntityLimit,
                "must be zero (no limit) or positive");
        SettingsValidation.require(
                snapshotEvery >= 0,
                "entities." + type + ".snapshot-every",
                snapshotEvery,
                "must be zero (no snapshots) or positive");
    }

    /** Builds {@link EntityTypeSettings}; every setting starts at its default. */
    public static final class Builder {

        private int numberOfShards;

        private boolean proxyOnly;

        private @Nullable Duration idleTimeout;

        private boolean rememberEntities;

        private @Nullable String role;

        private AppliedMessageWindow appliedMessages = AppliedMessageWindow.DEFAULT;

        private PassivationStrategy passivation = PassivationStrategy.IDLE;

        private @Nullable Integer activeEntityLimit;

        private int snapshotEvery = DEFAULT_SNAPSHOT_EVERY;

        private Builder() {}

        /**
         * The number of shards of the type.
         *
         * @param value the number, or 0 for the node's default (the default)
         * @return this builder
         */
        public Builder numberOfShards(int value) {
            this.numberOfShards = value;
            return this;
        }

        /**
         * Whether this node only routes messages of the type and hosts none of its entities.
         *
         * @param value true for a proxy (default false)
         * @return this builder
         */
        public Builder proxyOnly(boolean value) {
            this.proxyOnly = value;
            return this;
        }

        /**
         * The type's idle time before passivation.
         *
         * @param value the time (zero for never), or {@code null} for the node's (the default)
         * @return this builder
         */
        public Builder idleTimeout(@Nullable Duration value) {
            this.idleTimeout = value;
            return this;
        }

        /**
         * Whether live entities are remembered and started again wherever their shard starts.
         *
         * @param value true to remember (default false)
         * @return this builder
         */
        public Builder rememberEntities(boolean value) {
            this.rememberEntities = value;
            return this;
        }

        /**
         * The role a node must have to host the type.
         *
         * @param value the role, or {@code null} for every node (the default)
         * @return this builder
         */
        public Builder role(@Nullable String value) {
            this.role = value;
            return this;
        }

        /**
         * The window of applied message ids.
         *
         * @param value the window (default {@link AppliedMessageWindow#DEFAULT})
         * @return this builder
         */
        public Builder appliedMessages(AppliedMessageWindow value) {
            this.appliedMessages = Objects.requireNonNull(value, "appliedMessages");
            return this;
        }

        /**
         * How live entities are chosen for passivation when there are too many.
         *
         * @param value the strategy (default {@link PassivationStrategy#IDLE})
         * @return this builder
         */
        public Builder passivation(PassivationStrategy value) {
            this.passivation = Objects.requireNonNull(value, "passivation");
            return this;
        }

        /**
         * The type's own limit of live entities on this node, in place of its share of the node's limit: beyond it,
         * its entities are passivated in its strategy's order (least recently used first for
         * {@link PassivationStrategy#IDLE}).
         *
         * @param value the limit, zero for none, or {@code null} for the share (default)
         * @return this builder
         */
        public Builder activeEntityLimit(@Nullable Integer value) {
            this.activeEntityLimit = value;
            return this;
        }

        /**
         * How many events apart the snapshots of an event-sourced entity are stored.
         *
         * @param value the number of events, or zero for no snapshots (default
         *     {@value EntityTypeSettings#DEFAULT_SNAPSHOT_EVERY})
         * @return this builder
         */
        public Builder snapshotEvery(int value) {
            this.snapshotEvery = value;
            return this;
        }

        /**
         * The settings.
         *
         * @return the settings, not yet validated (the node's {@link ShardingSettings#validate()} checks them)
         */
        public EntityTypeSettings build() {
            return new EntityTypeSettings(
                    numberOfShards,
                    proxyOnly,
                    idleTimeout,
                    rememberEntities,
                    role,
                    appliedMessages,
                    passivation,
                    activeEntityLimit,
                    snapshotEvery);
        }
    }
}
