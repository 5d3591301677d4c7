package dev.sharding.internal.region;

import dev.sharding.EntityType;
import dev.sharding.LocalRegion;
import dev.sharding.Member;
import dev.sharding.PassivationStrategy;
import dev.sharding.ShardRegion;
import dev.sharding.internal.entity.EntityHandlers;
import dev.sharding.internal.entity.Passivation;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.spi.EntityTypeMetrics;
import dev.sharding.spi.MessageTracing;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The region of one entity type on this node: the only door to the type's entities, and the composition of the parts
 * that do its jobs.
 *
 * <ul>
 * <li><b>Routing and buffering</b> ({@link ShardRouter}): a message's shard is the type's
 * {@link dev.sharding.spi.ShardIdFunction} of its id ({@code floorMod(id.hashCode(), numberOfShards)} by default); the
 * region keeps one {@link ShardSlot} per shard, sends at once
 * where the home is known, and buffers while it is not. Frames from other nodes go the same way.</li>
 * <li><b>Hosting</b> ({@link ShardHosting}): the shards the coordinator placed here ({@link Shard}), started by
 * {@code HostShard} with the state the previous owner carried, and dropped without a handoff when the node loses its
 * lease or the store says a newer copy exists.</li>
 * <li><b>Handoff</b> ({@link RegionHandOffs}): as any region, buffering a moving shard's messages and acknowledging
 * to its owner; as the owner, {@link ShardHandOff}.</li>
 * <li><b>Passivation</b> ({@link Passivation}), and the entities counted as they start and stop, with the
 * <b>remember-entities journal</b> ({@link RegionEntities}, {@link RememberJournal}).</li>
 * </ul>
 *
 * <h2>Order</h2>
 * Messages from one thread to one entity keep their order: the caller either sends directly (after any buffered
 * message of the slot was sent, see {@link ShardSlot}) or appends to the buffer; frames from one node to another
 * are delivered in order by the transport; and a region receiving frames delivers or forwards them in that order.
 *
 * <h2>Failures</h2>
 * When a member leaves, homes on it are forgotten (the next message asks the coordinator again) and asks sent to it
 * fail with {@link dev.sharding.EntityUnreachableException}. Asks time out with
 * {@link dev.sharding.AskTimeoutException}. Buffers are bounded by {@code buffer-size}: a full buffer fails the ask
 * or the tell at once.
 *
 * <p>Protocol state changes (homes, hosting, buffered requests) happen on the node's control thread only; caller
 * and transport threads touch a slot's buffer under its monitor, and only while its home is unknown.
 *
 * @param <T> the entity class
 */
public final class Region<T> implements ShardRegion<T>, LocalRegion {

    private static final Logger log = LoggerFactory.getLogger(Region.class);

    private final RegionHost node;

    private final EntityType<T> type;

    private final EntityHandlers handlers;

    private final int numberOfShards;

    private final boolean proxyOnly;

    private final ShardSlot[] slots;

    private final ShardRouter router;

    private final RegionEntities entities;

    private final boolean rememberEntities;

    private final Passivation passivation;

    private final ShardHosting hosting;

    private final RegionHandOffs handOffs;

    private final EntityTypeMetrics metrics;

    private final RegionSends sends;

    public Region(RegionHost node, EntityType<T> type, EntityHandlers handlers, int numberOfShards, boolean proxyOnly) {
        this.node = node;
        this.type = type;
        this.handlers = handlers;
        this.numberOfShards = numberOfShards;
        this.proxyOnly = proxyOnly;
        this.rememberEntities = node.services().settings().entity(type.name()).rememberEntities();
        this.metrics = Objects.requireNonNull(node.services().metrics().entityType(type.name()), "metrics");
        MessageTracing tracing = node.services().tracing() == MessageTracing.NONE
                ? null
                : node.services().tracing();
        this.slots = new ShardSlot[numberOfShards];
        for (int i = 0; i < numberOfShards; i++) {
            slots[i] = new ShardSlot(i);
        }
        this.router = new ShardRouter(node, type.name(), slots, type.shardIdFunction(), metrics);
        this.sends = new RegionSends(
                node.view(), node.serving(), node.services().asks(), type, handlers, slots, router, metrics, tracing);
        RememberJournal journal = rememberEntities
                ? new RememberJournal(
                        type.name(),
                        node.services().store(),
                        this::onControl,
                        node.plane().control(),
                        node.services().settings().shardFailureBackoff())
                : null;
        this.entities = new RegionEntities(
                node, RegionEntities.services(node, type, handlers, metrics, tracing), journal, this::shardFenced);
        this.hosting = new ShardHosting(this, node, slots, router, proxyOnly, entities, journal);
        this.handOffs = new RegionHandOffs(this, node, slots);
        this.passivation = new Passivation(
                numberOfShards,
                hosting::liveCells,
                () -> node.services().settings().idleTimeout(type.name()),
                node.services().settings().entity(type.name()),
                node.services().settings().passivation(),
                entities::active,
                rememberEntities);
        entities.limitBy(passivation::limit);
    }

    @Override
    public String typeName() {
        return type.name();
    }

    public EntityType<T> type() {
        return type;
    }

    /**
     * The entity class.
     *
     * @return the class
     */
    public Class<T> entityClass() {
        return type.entityClass();
    }

    public EntityHandlers handlers() {
        return handlers;
    }

    /** The shard of an entity id. */
    int shardOf(String entityId) {
        return router.shardOf(entityId);
    }

    /** Bytes of messages from other nodes waiting for shard homes now. */
    long bufferedBytes() {
        return router.bufferedBytes();
    }

    /** Messages refused so far because their entity's mailbox was full. */
    long mailboxRefusals() {
        return entities.mailboxRefusals();
    }

    /**
     * Whether this region only routes.
     *
     * @return true when it hosts nothing
     */
    public boolean proxyOnly() {
        return proxyOnly;
    }

    /**
     * The number of shards of the type.
     *
     * @return the number
     */
    public int numberOfShards() {
        return numberOfShards;
    }

    /**
     * Tells dropped on the way ({@link Refusals}).
     *
     * @return the count since start
     */
    long droppedTells() {
        return router.droppedTells();
    }

    /**
     * Messages waiting for shard homes now.
     *
     * @return the count
     */
    public int bufferedMessages() {
        return router.buffered();
    }

    // ---- entity lifecycle and passivation ------------------------------------------------------------------------

    /**
     * Writes the entities started and forgotten since the last flush to the store: those of one shard, or of all
     * ({@code shardId} -1); see {@link RememberJournal#flush}. Control thread.
     *
     * @return completes when the writes are done (failed ones included)
     */
    public CompletableFuture<Void> flushRemembered(int shardId) {
        return entities.flushRemembered(shardId);
    }

    /** Runs on the control thread, or here when the node has stopped it. */
    private void onControl(Runnable task) {
        if (!node.plane().runOnControlLater(task)) {
            task.run();
        }
    }

    /**
     * Live entities hosted here now.
     *
     * @return the count
     */
    public int activeEntities() {
        return entities.active();
    }

    /**
     * Entities passivated since start (by themselves, for idleness, or over the limit of live entities).
     *
     * @return the count
     */
    public long passivations() {
        return entities.passivations();
    }

    /**
     * Changes how this region passivates, while the node runs; the next sweep (at once) applies it. Any thread.
     *
     * @param strategy the new strategy, or {@code null} to keep it
     * @param activeEntityLimit the region's limit of live entities (zero for none), or {@code null} to keep it
     */
    public void changePassivation(@Nullable PassivationStrategy strategy, @Nullable Integer activeEntityLimit) {
        passivation.change(strategy, activeEntityLimit);
        node.events().requestSweep();
    }

    /** The region's passivation strategy now. @return the strategy */
    public PassivationStrategy passivationStrategy() {
        return passivation.strategy();
    }

    /** The region's limit of live entities now. @return the limit, zero for none */
    public int activeEntityLimit() {
        return passivation.limit();
    }

    /** The idle and over-limit passes over this region's entities. Control thread. */
    public Passivation passivation() {
        return passivation;
    }

    // ---- caller side -------------------------------------------------------------------------------------------

    @Override
    public void tell(String entityId, Object message) {
        sends.tell(entityId, message);
    }

    @Override
    public <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType) {
        return sends.ask(
                entityId, message, replyType, node.services().settings().askTimeout());
    }

    @Override
    public <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType, Duration timeout) {
        return sends.ask(entityId, message, replyType, timeout);
    }

    @Override
    public <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType, String messageId) {
        return sends.ask(
                entityId, message, replyType, node.services().settings().askTimeout(), messageId);
    }

    @Override
    public <R> CompletableFuture<R> ask(
            String entityId, Object message, Class<R> replyType, Duration timeout, String messageId) {
        return sends.ask(entityId, message, replyType, timeout, messageId);
    }

    /** Whether the home of any of the type's shards is known here. Any thread. */
    boolean anyShardHomeKnown() {
        for (ShardSlot slot : slots) {
            if (slot.home() != null) {
                return true;
            }
        }
        return false;
    }

    /** The coordinator told this region to host a shard ({@link ShardHosting#host}). Control thread. */
    boolean hostShard(int shardId, long epoch, long transferEpoch, List<EntityTransfer> transfer) {
        return hosting.host(shardId, epoch, transferEpoch, transfer);
    }

    /** The shards hosted here: started, dropped, reported. */
    public ShardHosting hosting() {
        return hosting;
    }

    /** Both sides of this region's handoffs. */
    public RegionHandOffs handOffs() {
        return handOffs;
    }

    /** Whether this region's type remembers its entities. */
    boolean remembersEntities() {
        return rememberEntities;
    }

    /**
     * Shards hosted here now.
     *
     * @return the count
     */
    public int hostedShards() {
        return hosting.count();
    }

    /** The type's recorder of counts and times. */
    EntityTypeMetrics metrics() {
        return metrics;
    }

    /**
     * Members are about to leave the view: forget homes on them so that the next message asks the coordinator. Runs
     * before the view that drops them is published. Control thread.
     */
    public void forgetHomesOn(Collection<Member> gone) {
        router.forgetHomesOn(gone);
    }

    /** Members left, in the view now published: handoffs that waited for them go on. Control thread. */
    public void membersGone() {
        handOffs.check();
    }

    /** An envelope arrived from another node; delivers, forwards, or buffers it ({@link ShardRouter#receive}). */
    public void receive(EntityEnvelope env, byte[] frame, int offset, int length) {
        router.receive(env, frame, offset, length);
    }

    /** The coordinator says where a shard lives ({@link ShardRouter#homeKnown}). Control thread. */
    void homeKnown(int shardId, Member home) {
        router.homeKnown(shardId, home);
    }

    /** Asks again for the homes of shards with waiting messages ({@link ShardRouter#retryRequests}). */
    public void retryRequests() {
        router.retryRequests();
    }

    /** Fails or drops everything still buffered ({@link ShardRouter#dropBuffers}). */
    public void dropBuffers(RuntimeException reason) {
        router.dropBuffers(reason);
    }

    /** The home of a shard as this region knows it. */
    @Nullable
    Member homeOf(int shardId) {
        return router.homeOf(shardId);
    }

    /** The store refused a write as stale ({@link ShardHosting#shardFenced}). Any thread. */
    private void shardFenced(int shardId, long epoch) {
        hosting.shardFenced(shardId, epoch);
    }

    /** Live entities per hosted shard. */
    Map<Integer, Integer> entityCounts() {
        return hosting.entityCounts();
    }

    /** Live entity ids per hosted shard. */
    public Map<Integer, List<String>> entityIds() {
        return hosting.entityIds();
    }

    @Override
    public String toString() {
        return "Region[" + type.name() + " on " + node.view().nodeName() + (proxyOnly ? ", proxy-only" : "") + "]";
    }
}
