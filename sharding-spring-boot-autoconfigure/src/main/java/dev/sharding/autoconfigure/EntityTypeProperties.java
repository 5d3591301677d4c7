package dev.sharding.autoconfigure;

import dev.sharding.AppliedMessageWindow;
import dev.sharding.EntityTypeSettings;
import dev.sharding.InvalidSettingException;
import dev.sharding.PassivationStrategy;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.PropertyMapper;

/**
 * Properties of one entity type, under {@code sharding.entities.<type>}.
 */
public class EntityTypeProperties {

    /**
     * Number of shards of this entity type, overriding the annotation and the node's default; 0 keeps them.
     */
    private int numberOfShards;

    /**
     * Whether this node only routes messages of this entity type and hosts none of its entities.
     */
    private boolean proxyOnly;

    /**
     * How long an entity of this type may go without a message before it is passivated, overriding
     * sharding.passivation.idle-timeout; 0 for never.
     */
    private @Nullable Duration idleTimeout;

    /**
     * Whether the ids of this type's live entities are stored, so that the entities start again without a message
     * wherever their shard starts (after a crash, a rebalance, or a restart of the whole cluster). Such entities are
     * not passivated for idleness; one that passivates itself is forgotten.
     */
    private boolean rememberEntities;

    /**
     * For an event-sourced entity type, how many events apart each entity's snapshots are stored, so that a recovery
     * after a crash reads at most that many events. 0 for no snapshots.
     */
    private int snapshotEvery = EntityTypeSettings.DEFAULT_SNAPSHOT_EVERY;

    /**
     * The role a node must have (sharding.roles) to host this entity type; the other nodes route its messages to the
     * nodes that have it. Empty for every node.
     */
    private @Nullable String role;

    /**
     * The ids of applied messages each entity of this type keeps, so that an ask retried with the same message id
     * gets the recorded reply instead of being applied again.
     */
    private final AppliedMessages appliedMessages = new AppliedMessages();

    /**
     * How this type's live entities are chosen for passivation when there are too many.
     */
    private final Passivation passivation = new Passivation();

    /**
     * How this type's entities are passivated.
     *
     * @return the passivation properties
     */
    public Passivation getPassivation() {
        return this.passivation;
    }

    /**
     * Properties of a type's passivation, under {@code sharding.entities.<type>.passivation}.
     */
    public static class Passivation {

        /**
         * idle (the default: idle-timeout, and the least recently used beyond the type's own active-entity-limit, if
         * set), or a strategy with a limit, sharing sharding.passivation.active-entity-limit with the node's other
         * such types unless the type has its own: least-recently-used, most-recently-used or least-frequently-used.
         */
        private PassivationStrategy strategy = PassivationStrategy.IDLE;

        /**
         * This type's own limit of live entities on this node, whatever its strategy; beyond it, its entities are
         * passivated in the strategy's order (the least recently used first for idle). Replaces the type's share of
         * sharding.passivation.active-entity-limit. 0 for no limit; unset for the share (or no limit with idle).
         */
        private @Nullable Integer activeEntityLimit;

        /**
         * The type's own limit of live entities.
         *
         * @return the limit, or null for none of its own
         */
        public @Nullable Integer getActiveEntityLimit() {
            return this.activeEntityLimit;
        }

        /**
         * Sets the type's own limit of live entities.
         *
         * @param activeEntityLimit the limit, 0 for none, null for the share
         */
        public void setActiveEntityLimit(@Nullable Integer activeEntityLimit) {
            this.activeEntityLimit = activeEntityLimit;
        }

        /**
         * The strategy.
         *
         * @return the strategy
         */
        public PassivationStrategy getStrategy() {
            return this.strategy;
        }

        /**
         * Sets the strategy.
         *
         * @param strategy the strategy
         */
        public void setStrategy(PassivationStrategy strategy) {
            this.strategy = strategy;
        }
    }

    /**
     * The window of applied message ids.
     *
     * @return the window's properties
     */
    public AppliedMessages getAppliedMessages() {
        return this.appliedMessages;
    }

    /**
     * These properties as core settings.
     *
     * @param type the entity type's name, for the setting an error names
     * @return the settings, not yet validated
     * @throws InvalidSettingException when the window of applied message ids is out of range
     */
    EntityTypeSettings toSettings(String type) {
        AppliedMessageWindow window;
        try {
            window = new AppliedMessageWindow(this.appliedMessages.getMaxCount(), this.appliedMessages.getMaxAge());
        } catch (InvalidSettingException e) {
            // the window checks itself on construction, and knows not which type it belongs to
            throw new InvalidSettingException("entities." + type + "." + e.setting(), e.value(), e.rule());
        }
        PropertyMapper map = PropertyMapper.get();
        EntityTypeSettings.Builder builder = EntityTypeSettings.builder().appliedMessages(window);
        map.from(this.numberOfShards).to(builder::numberOfShards);
        map.from(this.proxyOnly).to(builder::proxyOnly);
        map.from(this.idleTimeout).to(builder::idleTimeout);
        map.from(this.rememberEntities).to(builder::rememberEntities);
        map.from(this.snapshotEvery).to(builder::snapshotEvery);
        map.from(this.role).whenHasText().as(String::trim).to(builder::role);
        map.from(this.passivation::getStrategy).to(builder::passivation);
        map.from(this.passivation::getActiveEntityLimit).to(builder::activeEntityLimit);
        return builder.build();
    }

    /**
     * Properties of the window of applied message ids, under {@code sharding.entities.<type>.applied-messages}.
     */
    public static class AppliedMessages {

        /**
         * The most message ids kept per entity; the oldest is dropped first. They are written with the entity's state
         * on each message with an id, so a larger window costs bytes on each such write.
         */
        private int maxCount = 64;

        /**
         * How long a message id is kept after its message was applied; a retry after that is applied again.
         */
        private Duration maxAge = Duration.ofHours(1);

        /**
         * The most ids kept per entity.
         *
         * @return the count
         */
        public int getMaxCount() {
            return this.maxCount;
        }

        /**
         * Sets the most ids kept per entity.
         *
         * @param maxCount the count
         */
        public void setMaxCount(int maxCount) {
            this.maxCount = maxCount;
        }

        /**
         * How long an id is kept.
         *
         * @return the age
         */
        public Duration getMaxAge() {
            return this.maxAge;
        }

        /**
         * Sets how long an id is kept.
         *
         * @param maxAge the age
         */
        public void setMaxAge(Duration maxAge) {
            this.maxAge = maxAge;
        }
    }

    /**
     * The role a node must have to host this type.
     *
     * @return the role, or {@code null} for every node
     */
    public @Nullable String getRole() {
        return this.role;
    }

    /**
     * Sets the role a node must have to host this type.
     *
     * @param role the role, or {@code null} for every node
     */
    public void setRole(@Nullable String role) {
        this.role = role;
    }

    /**
     * Whether live entities are remembered.
     *
     * @return true to remember them
     */
    public boolean isRememberEntities() {
        return this.rememberEntities;
    }

    /**
     * Sets whether live entities are remembered.
     *
     * @param rememberEntities true to remember them
     */
    public void setRememberEntities(boolean rememberEntities) {
        this.rememberEntities = rememberEntities;
    }

    /**
     * How many events apart snapshots are stored.
     *
     * @return the number of events, 0 for none
     */
    public int getSnapshotEvery() {
        return this.snapshotEvery;
    }

    /**
     * Sets how many events apart snapshots are stored.
     *
     * @param snapshotEvery the number of events, 0 for none
     */
    public void setSnapshotEvery(int snapshotEvery) {
        this.snapshotEvery = snapshotEvery;
    }

    /**
     * The type's own idle timeout.
     *
     * @return the timeout, or {@code null} for the node's
     */
    public @Nullable Duration getIdleTimeout() {
        return this.idleTimeout;
    }

    /**
     * Sets the type's own idle timeout.
     *
     * @param idleTimeout the timeout, or {@code null} for the node's
     */
    public void setIdleTimeout(@Nullable Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    /**
     * The number of shards.
     *
     * @return the number, or 0 for the annotation's or the node's default
     */
    public int getNumberOfShards() {
        return this.numberOfShards;
    }

    /**
     * Sets the number of shards.
     *
     * @param numberOfShards the number, or 0 for the default
     */
    public void setNumberOfShards(int numberOfShards) {
        this.numberOfShards = numberOfShards;
    }

    /**
     * Whether this node only routes.
     *
     * @return true for a proxy-only region
     */
    public boolean isProxyOnly() {
        return this.proxyOnly;
    }

    /**
     * Sets whether this node only routes.
     *
     * @param proxyOnly true for a proxy-only region
     */
    public void setProxyOnly(boolean proxyOnly) {
        this.proxyOnly = proxyOnly;
    }
}
