package dev.sharding.internal.region;

import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.util.concurrent.ExecutorService;

/**
 * The parts a region shares with the node's other regions, fixed for the node's life.
 *
 * @param settings the node's settings
 * @param transport where frames go to other members
 * @param codec the node's codec of messages and replies
 * @param protocol the codec of protocol messages
 * @param store the sharding store
 * @param asks the asks waiting for a reply from another node
 * @param executor the entity executor
 * @param metrics where the node's counts and times go
 * @param tracing how the node traces messages; {@link MessageTracing#NONE} when it does not
 * @param blockedThreads reports the node's own threads held too long
 * @param serializeLocalMessages whether messages and replies delivered within the node go through the codec and back
 *     (a test mode)
 */
public record RegionServices(
        ShardingSettings settings,
        Transport transport,
        MessageCodec codec,
        ProtocolCodec protocol,
        ShardingStore store,
        AskRegistry asks,
        ExecutorService executor,
        ShardingMetrics metrics,
        MessageTracing tracing,
        BlockedThreads blockedThreads,
        boolean serializeLocalMessages) {}
