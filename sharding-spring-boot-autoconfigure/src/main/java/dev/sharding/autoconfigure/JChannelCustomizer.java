package dev.sharding.autoconfigure;

import org.jgroups.JChannel;

/**
 * Changes the JGroups channel of the auto-configured node after it has been created from its stack and before it
 * connects: for example to add a protocol or set a property. Every bean of this type is applied, in
 * {@link org.springframework.core.annotation.Order} order.
 */
@FunctionalInterface
public interface JChannelCustomizer {

    /**
     * Changes the channel.
     *
     * @param channel the channel, not yet connected
     */
    void customize(JChannel channel);
}
