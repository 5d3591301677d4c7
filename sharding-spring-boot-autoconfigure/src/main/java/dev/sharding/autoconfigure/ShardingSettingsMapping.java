package dev.sharding.autoconfigure;

import dev.sharding.InvalidSettingException;
import dev.sharding.MemberSettings;
import dev.sharding.ShardingSettings;
import dev.sharding.ShardingSettingsBuilder;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.util.unit.DataSize;

/**
 * Maps {@link ShardingProperties} to {@link ShardingSettings}, property by property with {@link PropertyMapper}: the
 * node's own properties to the node's settings, and each group of properties ({@code rebalance}, {@code passivation},
 * {@code jgroups}, {@code split-brain}, {@code backpressure}, {@code entities.<type>}) to its group of settings with
 * the group's own {@code toSettings()}. The core names its settings after the properties, so an invalid value is
 * reported as {@code sharding.} + the setting it names.
 */
final class ShardingSettingsMapping {

    private ShardingSettingsMapping() {}

    /**
     * The settings of these properties, checked.
     *
     * @param properties the bound properties
     * @return the validated settings
     * @throws InvalidSettingException naming the first property whose value is out of range
     */
    static ShardingSettings toSettings(ShardingProperties properties) {
        long payload = properties.getMaxPayloadSize().toBytes();
        if (payload > Integer.MAX_VALUE) {
            throw new InvalidSettingException(
                    "max-payload-size",
                    properties.getMaxPayloadSize(),
                    "must be at most " + Integer.MAX_VALUE + " bytes");
        }
        PropertyMapper map = PropertyMapper.get();
        // From the builder's defaults, so that settings the core adds later keep their core defaults until they get
        // properties of their own.
        ShardingSettingsBuilder settings = ShardingSettings.builder();
        map.from(properties.getClusterName()).to(settings::clusterName);
        map.from(properties.getNodeName()).to(settings::nodeName);
        map.from(properties.getNumberOfShards()).to(settings::numberOfShards);
        map.from(properties.getAskTimeout()).to(settings::askTimeout);
        map.from(properties.getBufferSize()).to(settings::bufferSize);
        map.from(properties.getBufferBytes()).as(DataSize::toBytes).to(settings::bufferBytes);
        map.from(properties.getMailboxSize()).to(settings::mailboxSize);
        map.from(properties.getBlockedThreadThreshold()).to(settings::blockedThreadThreshold);
        map.from(properties.getRetryInterval()).to(settings::retryInterval);
        map.from(payload).asInt(Long::intValue).to(settings::maxPayloadSize);
        map.from(properties.getHandoffTimeout()).to(settings::handoffTimeout);
        map.from(properties.getEntityRestartBackoff()).to(settings::entityRestartBackoff);
        map.from(properties.getShardFailureBackoff()).to(settings::shardFailureBackoff);
        map.from(() -> properties.getRebalance().toSettings(properties.getRebalanceInterval()))
                .to(settings::rebalance);
        map.from(properties.getPassivation()::toSettings).to(settings::passivation);
        map.from(properties.getJgroups()::toSettings).to(settings::jgroups);
        map.from(properties.getSplitBrain()::toSettings).to(settings::splitBrain);
        map.from(() -> member(properties)).to(settings::member);
        map.from(properties.getBackpressure()::toSettings).to(settings::backpressure);
        properties.getEntities().forEach((type, entity) -> settings.entity(type, entity.toSettings(type)));
        return settings.build().validate();
    }

    /** The roles, application version and minimum number of members, flat properties of the node. */
    private static MemberSettings member(ShardingProperties properties) {
        Set<String> roles = properties.getRoles().stream()
                .map(String::trim)
                .filter(r -> !r.isEmpty())
                .collect(Collectors.toSet());
        String version = properties.getAppVersion();
        return new MemberSettings(roles, version == null ? "" : version.trim(), properties.getMinNrOfMembers());
    }
}
