package dev.sharding.internal.entity;

import dev.sharding.AppliedMessageWindow;
import dev.sharding.EntityType;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingStore;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * The parts the entities of one type share on this node, fixed for their region's life.
 *
 * @param type the entity type: its factory, its state type, its name
 * @param handlers the type's handlers
 * @param executor the entity executor, where mailboxes run
 * @param scheduler where waits are timed (the control thread)
 * @param store where entity states are read and written
 * @param codec the node's codec: states, recorded replies, fingerprints
 * @param serializeLocalMessages whether written states are read back through the codec (a test mode)
 * @param blockedThreads reports the node's own threads held too long
 * @param metrics the type's recorder of counts and times
 * @param tracing how messages are traced, or {@code null} when the node does not trace
 * @param mailboxSize the most messages waiting in one entity's mailbox ({@code mailbox-size})
 * @param bufferSize the most messages an entity that cannot start holds ({@code buffer-size})
 * @param entityRestartBackoff the longest wait between attempts to start an entity whose start failed
 * @param appliedMessages how many ids of applied messages each entity keeps, and for how long
 * @param events the codec of the type's events, or {@code null} when the type is not event-sourced
 * @param snapshotEvery how many events apart an event-sourced entity's snapshots are stored; zero for none
 */
public record EntityServices(
        EntityType<?> type,
        EntityHandlers handlers,
        Executor executor,
        ScheduledExecutorService scheduler,
        ShardingStore store,
        MessageCodec codec,
        boolean serializeLocalMessages,
        BlockedThreads blockedThreads,
        EntityTypeMetrics metrics,
        @Nullable MessageTracing tracing,
        int mailboxSize,
        int bufferSize,
        Duration entityRestartBackoff,
        AppliedMessageWindow appliedMessages,
        @Nullable EventCodec events,
        int snapshotEvery) {}
