package dev.sharding.internal.region;

import dev.sharding.BufferFullException;
import dev.sharding.EntityType;
import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.codec.EventCodec;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.entity.EntityRegion;
import dev.sharding.internal.entity.EntityServices;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.MessageTracing;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entities of one region on this node, and the region as they see it ({@link EntityRegion}): counted as they
 * start, stop and passivate (the live ones, for the limit of live entities, which asks for a sweep when passed, and
 * for the statistics; the passivations; and, for a type that remembers its entities, the {@link RememberJournal} of
 * those started and forgotten), told whether the node serves, and refused when their mailbox is full.
 *
 * <p>Any thread: the entity threads report, the control thread flushes.
 */
final class RegionEntities implements EntityRegion {

    private static final Logger log = LoggerFactory.getLogger(RegionEntities.class);

    /** What the region's entities are told when the store says their shard moved. */
    @FunctionalInterface
    interface Fencing {

        /** The store refused a write of the shard's entity as stale ({@link ShardHosting#shardFenced}). */
        void shardFenced(int shardId, long epoch);
    }

    private final RegionHost node;

    private final EntityServices services;

    private final AtomicInteger active = new AtomicInteger();

    private final AtomicLong passivations = new AtomicLong();

    /** Messages refused because their entity's mailbox was full. */
    private final AtomicLong mailboxRefusals = new AtomicLong();

    /** The ids of live entities kept in the store (remember-entities), or {@code null} for a type that does not. */
    private final @Nullable RememberJournal journal;

    private final Fencing fencing;

    /** The region's limit of live entities now (zero for none); set once the region's passivation exists. */
    private volatile IntSupplier limit = () -> 0;

    RegionEntities(RegionHost node, EntityServices services, @Nullable RememberJournal journal, Fencing fencing) {
        this.node = node;
        this.services = services;
        this.journal = journal;
        this.fencing = fencing;
    }

    /** The parts the entities of a type share on the node. */
    static EntityServices services(
            RegionHost node,
            EntityType<?> type,
            EntityHandlers handlers,
            EntityTypeMetrics metrics,
            @Nullable MessageTracing tracing) {
        return new EntityServices(
                type,
                handlers,
                node.services().executor(),
                node.plane().control(),
                node.services().store(),
                node.services().codec(),
                node.services().serializeLocalMessages(),
                node.services().blockedThreads(),
                metrics,
                tracing,
                node.services().settings().mailboxSize(),
                node.services().settings().bufferSize(),
                node.services().settings().entityRestartBackoff(),
                node.services().settings().entity(type.name()).appliedMessages(),
                eventCodec(type, node.services().settings().maxPayloadSize()),
                node.services().settings().entity(type.name()).snapshotEvery());
    }

    /** The codec of an event-sourced type's events, or {@code null} for a type that is not. */
    private static @Nullable EventCodec eventCodec(EntityType<?> type, int maxPayloadSize) {
        Class<?> events = type.eventType();
        return events == null ? null : new EventCodec(type.name(), events, type.eventUpcasters(), maxPayloadSize);
    }

    /** The parts the region's entities share. */
    EntityServices services() {
        return services;
    }

    /** Where the region's limit of live entities comes from. */
    void limitBy(IntSupplier value) {
        limit = value;
    }

    @Override
    public void entityStarted(EntityCell cell) {
        if (journal != null) {
            journal.started(cell.shardId(), cell.shardEpoch(), cell.entityId());
        }
        int n = active.incrementAndGet();
        int max = limit.getAsInt();
        if (max > 0 && n > max) {
            node.events().requestSweep();
        }
    }

    @Override
    public void entityStopped(EntityCell cell) {
        active.decrementAndGet();
    }

    @Override
    public void entityPassivated(EntityCell cell) {
        passivations.incrementAndGet();
        services.metrics().passivated();
        if (journal != null) {
            journal.stopped(cell.shardId(), cell.shardEpoch(), cell.entityId());
        }
    }

    int active() {
        return active.get();
    }

    long passivations() {
        return passivations.get();
    }

    /** Messages refused so far because their entity's mailbox was full. */
    long mailboxRefusals() {
        return mailboxRefusals.get();
    }

    /**
     * Writes the entities started and forgotten since the last flush to the store: those of one shard, or of all
     * ({@code shardId} -1); see {@link RememberJournal#flush}. Control thread.
     *
     * @return completes when the writes are done (failed ones included)
     */
    CompletableFuture<Void> flushRemembered(int shardId) {
        return journal == null ? CompletableFuture.completedFuture(null) : journal.flush(shardId);
    }

    // ---- the region as its entities see it ----------------------------------------------------------------------

    @Override
    public String nodeName() {
        return node.view().nodeName();
    }

    @Override
    public boolean serving() {
        return node.serving().serving();
    }

    @Override
    public String notServingReason() {
        String reason = node.serving().partitionedReason();
        return "Sharding node " + node.view().nodeName() + " does not serve: "
                + (reason != null ? reason : "it holds no lease from the coordinator now");
    }

    @Override
    public void park(EntityCell cell) {
        node.serving().park(cell);
    }

    /**
     * A message did not fit its entity's full mailbox: an ask fails with {@link BufferFullException}, a tell is
     * dropped and counted (logged the first time, then at powers of two).
     */
    @Override
    public void mailboxFull(EntityCell cell, ReplySink sink) {
        String reason = "Mailbox of entity [" + services.type().name() + "/" + cell.entityId() + "] on "
                + node.view().nodeName() + " is full (" + services.mailboxSize()
                + " messages waiting; setting mailbox-size)";
        long n = mailboxRefusals.incrementAndGet();
        if (sink.isTell()) {
            services.metrics().dropped(EntityTypeMetrics.DropReason.BUFFER_FULL);
            if (n == 1 || Long.bitCount(n) == 1) {
                log.warn("Dropped a tell ({} messages refused by full mailboxes so far): {}", n, reason);
            }
        }
        sink.fail(FailureKind.BUFFER_FULL, BufferFullException.class.getName(), reason);
    }

    @Override
    public long clockMillis() {
        return node.plane().clockMillis();
    }

    @Override
    public long storeMillis() {
        return node.plane().storeMillis();
    }

    @Override
    public void shardFenced(int shardId, long epoch) {
        fencing.shardFenced(shardId, epoch);
    }
}
