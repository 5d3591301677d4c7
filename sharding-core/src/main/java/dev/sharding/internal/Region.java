package dev.sharding.internal;

import dev.sharding.EntityType;
import dev.sharding.Member;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingException;
import dev.sharding.ShardingSettings;
import dev.sharding.UnhandledMessageException;
import dev.sharding.internal.protocol.BeginHandOffAck;
import dev.sharding.internal.protocol.EntityEnvelope;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.RegionInfo;
import dev.sharding.internal.protocol.ShardStopped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The region of one entity type on this node: the only door to the type's entities, and the composition of the parts
 * that do its jobs.
 *
 * <ul>
 * <li><b>Routing and buffering</b> ({@link ShardRouter}): a message's shard is
 * {@code floorMod(id.hashCode(), numberOfShards)}; the region keeps one {@link ShardSlot} per shard, sends at once
 * where the home is known, and buffers while it is not. Frames from other nodes go the same way.</li>
 * <li><b>Hosting</b>: the shards the coordinator placed here ({@link Shard}), started by {@code HostShard} with the
 * state the previous owner carried, and dropped without a handoff when the node loses its lease or the store says a
 * newer copy exists.</li>
 * <li><b>Handoff</b>: as any region, buffering a moving shard's messages and acknowledging to its owner; as the
 * owner, {@link ShardHandOff}.</li>
 * <li><b>Passivation</b> ({@link Passivation}) and the <b>remember-entities journal</b> ({@link RememberJournal}).</li>
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
public final class Region<T> implements ShardRegion<T> {

    private static final Logger log = LoggerFactory.getLogger(Region.class);

    private final RegionHost node;

    private final EntityType<T> type;

    private final EntityHandlers handlers;

    private final int numberOfShards;

    private final boolean proxyOnly;

    private final ShardSlot[] slots;

    private final ShardRouter router;

    private final AtomicInteger activeEntities = new AtomicInteger();

    private final AtomicLong passivations = new AtomicLong();

    private final boolean rememberEntities;

    /** The ids of live entities kept in the store (remember-entities), or {@code null} for a type that does not. */
    private final @Nullable RememberJournal journal;

    private final Passivation passivation;

    Region(RegionHost node, EntityType<T> type, EntityHandlers handlers, int numberOfShards, boolean proxyOnly) {
        this.node = node;
        this.type = type;
        this.handlers = handlers;
        this.numberOfShards = numberOfShards;
        this.proxyOnly = proxyOnly;
        this.rememberEntities = node.settings().entity(type.name()).rememberEntities();
        this.slots = new ShardSlot[numberOfShards];
        for (int i = 0; i < numberOfShards; i++) {
            slots[i] = new ShardSlot(i);
        }
        this.router = new ShardRouter(node, type.name(), slots);
        this.journal = rememberEntities ? new RememberJournal(type.name(), node.store(), this::onControl) : null;
        this.passivation = new Passivation(
                numberOfShards,
                this::liveCells,
                () -> node.settings().idleTimeout(type.name()),
                () -> node.settings().passivationMaxActiveEntities(),
                activeEntities::get,
                rememberEntities);
    }

    /** The live entities of a shard hosted here and not stopping, or {@code null}. */
    private java.util.@Nullable Collection<EntityCell> liveCells(int shardId) {
        Shard local = slots[shardId].local;
        return local == null || local.stopping ? null : local.cells();
    }

    @Override
    public String typeName() {
        return type.name();
    }

    EntityType<T> type() {
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

    EntityHandlers handlers() {
        return handlers;
    }

    Executor executor() {
        return node.executor();
    }

    dev.sharding.spi.ShardingStore store() {
        return node.store();
    }

    dev.sharding.spi.MessageCodec codec() {
        return node.codec();
    }

    String nodeName() {
        return node.nodeName();
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
     * Tells dropped because the buffer was full.
     *
     * @return the count since start
     */
    public long droppedTells() {
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

    long clockMillis() {
        return node.clockMillis();
    }

    void entityStarted(EntityCell cell) {
        if (journal != null) {
            journal.started(cell.shardId(), cell.entityId());
        }
        int n = activeEntities.incrementAndGet();
        int max = node.settings().passivationMaxActiveEntities();
        if (max > 0 && n > max) {
            node.requestSweep();
        }
    }

    void entityStopped(EntityCell cell) {
        activeEntities.decrementAndGet();
    }

    void entityPassivated(EntityCell cell) {
        passivations.incrementAndGet();
        if (journal != null) {
            journal.stopped(cell.shardId(), cell.entityId());
        }
    }

    /** Writes the entities started and forgotten since the last flush to the store, per shard. Control thread. */
    CompletableFuture<Void> flushRemembered() {
        return flushRemembered(-1);
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

    /** Runs on the control thread, or here when the node has stopped it. */
    private void onControl(Runnable task) {
        if (!node.runOnControlLater(task)) {
            task.run();
        }
    }

    /** Starts the remembered entities of a shard that has just started here. */
    private void startRemembered(int shardId, Shard local) {
        if (journal != null) {
            journal.startRemembered(
                    shardId,
                    () -> slots[shardId].local == local && !local.stopping,
                    id -> local.deliver(id, EntityCell.StartSignal.INSTANCE, ReplySink.TELL));
        }
    }

    /**
     * Live entities hosted here now.
     *
     * @return the count
     */
    public int activeEntities() {
        return activeEntities.get();
    }

    /**
     * Entities passivated since start (by themselves, for idleness, or over the limit of live entities).
     *
     * @return the count
     */
    public long passivations() {
        return passivations.get();
    }

    /** Starts an idle pass ({@link Passivation#startIdlePass}). Control thread. */
    void startIdlePass(long nowMillis) {
        passivation.startIdlePass(nowMillis);
    }

    /** Goes on with the running idle pass ({@link Passivation#continueIdlePass}). Control thread. */
    int continueIdlePass(int budget) {
        return passivation.continueIdlePass(budget);
    }

    /** Passivates the least recently used entities beyond the limit of live entities. Control thread. */
    void passivateOverLimit() {
        passivation.passivateOverLimit();
    }

    // ---- caller side -------------------------------------------------------------------------------------------

    @Override
    public void tell(String entityId, Object message) {
        int shard = check(entityId, message);
        if (!handlers.handles(message.getClass())) {
            throw new UnhandledMessageException(
                    "Entity type " + type.name() + " (" + type.entityClass().getName() + ") has no @EntityHandler for "
                            + message.getClass().getName());
        }
        node.checkRunning();
        router.route(slots[shard], entityId, message, null);
    }

    @Override
    public <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType) {
        return ask(entityId, message, replyType, node.settings().askTimeout());
    }

    @Override
    public <R> CompletableFuture<R> ask(String entityId, Object message, Class<R> replyType, Duration timeout) {
        Objects.requireNonNull(replyType, "replyType");
        Objects.requireNonNull(timeout, "timeout");
        int shard = check(entityId, message);
        PendingAsk<R> ask =
                new PendingAsk<>(replyType, type.name(), entityId, System.nanoTime() + Math.max(1, timeout.toNanos()));
        if (!handlers.handles(message.getClass())) {
            ask.fail(new UnhandledMessageException(
                    "Entity type " + type.name() + " (" + type.entityClass().getName() + ") has no @EntityHandler for "
                            + message.getClass().getName()));
            return ask.future;
        }
        if (!node.isRunning()) {
            ask.fail(new ShardingException("Sharding node " + node.nodeName() + " is not running"));
            return ask.future;
        }
        String partitioned = node.partitionedReason();
        if (partitioned != null) {
            ask.fail(node.partitionedException(partitioned));
            return ask.future;
        }
        node.asks().track(ask);
        try {
            router.route(slots[shard], entityId, message, ask);
        } catch (RuntimeException e) {
            ask.fail(e);
        }
        return ask.future;
    }

    private int check(String entityId, Object message) {
        if (entityId == null || entityId.isEmpty() || entityId.length() > ShardingSettings.MAX_ENTITY_ID_LENGTH) {
            throw new IllegalArgumentException("Invalid entity id for type " + type.name() + ": must be 1 to "
                    + ShardingSettings.MAX_ENTITY_ID_LENGTH + " characters");
        }
        Objects.requireNonNull(message, "message");
        return EntityType.shardOf(entityId, numberOfShards);
    }

    /**
     * The coordinator told this region to host a shard. Control thread.
     *
     * @return whether the shard is hosted here now (false while an earlier incarnation is still stopping)
     */
    boolean hostShard(int shardId, long epoch, long transferEpoch, List<EntityTransfer> transfer) {
        if (proxyOnly || shardId < 0 || shardId >= numberOfShards) {
            log.error("Coordinator asked proxy-only or out-of-range region {} to host shard {}", this, shardId);
            return false;
        }
        if (!node.serving()) {
            return false; // no lease yet, or lost: the coordinator repeats HostShard
        }
        ShardSlot slot = slots[shardId];
        Shard local = slot.local;
        if (local != null && local.stopping) {
            return false; // the coordinator repeats HostShard; by then the old incarnation has stopped
        }
        if (local != null && local.epoch() != epoch) {
            return false; // a repeated HostShard of an incarnation that was dropped meanwhile
        }
        boolean started = local == null;
        if (started) {
            List<EntityTransfer> carried = transfer;
            if (!transfer.isEmpty() && transferEpoch + 1 != epoch) {
                // another allocation came between the incarnation that stopped and this one: the store may hold
                // newer state than what was carried, so every entity reads its state from the store
                log.info(
                        "Shard {} of {}: state carried from epoch {} is not the one before epoch {}; reading it "
                                + "from the store",
                        shardId,
                        type.name(),
                        transferEpoch,
                        epoch);
                carried = List.of();
            }
            local = new Shard(this, shardId, epoch, carried);
            slot.local = local;
        }
        router.publish(slot, node.self());
        if (started && rememberEntities) {
            startRemembered(shardId, local);
        }
        return true;
    }

    // ---- handoff (control thread) ------------------------------------------------------------------------------

    /** A handoff begins: buffer the shard's messages, then acknowledge to the owner once no send is under way. */
    void beginHandOff(int shardId, Member owner) {
        if (shardId < 0 || shardId >= numberOfShards) {
            return;
        }
        ShardSlot slot = slots[shardId];
        synchronized (slot) {
            slot.home = null;
        }
        whenQuiet(slot, () -> node.send(owner, new BeginHandOffAck(type.name(), shardId), false));
    }

    /** Runs an action on the control thread once no thread is between reading the slot's home and sending. */
    void whenQuiet(ShardSlot slot, Runnable action) {
        if (slot.senders.get() == 0) {
            action.run();
        } else {
            node.control().schedule(() -> whenQuiet(slot, action), 200, TimeUnit.MICROSECONDS);
        }
    }

    /** At the owner: a region acknowledged BeginHandOff. */
    void handOffAcknowledged(Member from, int shardId) {
        if (shardId < 0 || shardId >= numberOfShards) {
            return;
        }
        handOffOf(slots[shardId]).acknowledged(from);
    }

    /** At the owner: stop the shard once every listed region acknowledged, then report ShardStopped. */
    void handOff(int shardId, List<Member> regions) {
        if (shardId < 0 || shardId >= numberOfShards) {
            return;
        }
        ShardSlot slot = slots[shardId];
        if (slot.local == null) {
            node.sendToCoordinator(
                    new ShardStopped(type.name(), shardId, 0, List.of())); // done before, or never hosted
            return;
        }
        handOffOf(slot).handOff(regions);
    }

    private ShardHandOff handOffOf(ShardSlot slot) {
        ShardHandOff h = slot.handOff;
        if (h == null) {
            h = new ShardHandOff(this, node, slot);
            slot.handOff = h;
        }
        return h;
    }

    /** Periodic, and when members left: handoffs past their deadline, or no longer waiting for anyone, go on. */
    void checkHandOffs() {
        for (ShardSlot slot : slots) {
            ShardHandOff h = slot.handOff;
            if (h != null && h.started()) {
                h.check();
            }
        }
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
        int n = 0;
        for (ShardSlot slot : slots) {
            if (slot.local != null) {
                n++;
            }
        }
        return n;
    }

    /** Members left: forget homes on them so that the next message asks the coordinator. Control thread. */
    void membersGone(Collection<Member> gone) {
        checkHandOffs();
        router.forgetHomesOn(gone);
    }

    /** An envelope arrived from another node; delivers, forwards, or buffers it ({@link ShardRouter#receive}). */
    void receive(EntityEnvelope env, byte[] frame, int offset, int length) {
        router.receive(env, frame, offset, length);
    }

    /** The coordinator says where a shard lives ({@link ShardRouter#homeKnown}). Control thread. */
    void homeKnown(int shardId, Member home) {
        router.homeKnown(shardId, home);
    }

    /** Asks again for the homes of shards with waiting messages ({@link ShardRouter#retryRequests}). */
    void retryRequests() {
        router.retryRequests();
    }

    /** Fails or drops everything still buffered ({@link ShardRouter#dropBuffers}). */
    void dropBuffers(RuntimeException reason) {
        router.dropBuffers(reason);
    }

    /** The home of a shard as this region knows it. */
    @Nullable
    Member homeOf(int shardId) {
        return router.homeOf(shardId);
    }

    RegionInfo info() {
        List<Shard> hosted = new ArrayList<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local;
            if (s != null) {
                hosted.add(s);
            }
        }
        int[] shards = new int[hosted.size()];
        long[] epochs = new long[hosted.size()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = hosted.get(i).shardId();
            epochs[i] = hosted.get(i).epoch();
        }
        return new RegionInfo(type.name(), proxyOnly, rememberEntities, numberOfShards, shards, epochs);
    }

    /** Whether this node may deliver to its entities now. */
    boolean serving() {
        return node.serving();
    }

    /** The ClusterPartitionedException of this node now, for a message refused because it does not serve. */
    String notServingReason() {
        String reason = node.partitionedReason();
        return "Sharding node " + node.nodeName() + " does not serve: "
                + (reason != null ? reason : "it holds no lease from the coordinator now");
    }

    /**
     * Stops one incarnation of a shard at once, without handing it off, and forgets its home: the coordinator found a
     * newer copy elsewhere. Control thread.
     */
    void stopShard(int shardId, long epoch) {
        if (shardId < 0 || shardId >= numberOfShards) {
            return;
        }
        ShardSlot slot = slots[shardId];
        Shard local = slot.local;
        if (local != null && local.epoch() == epoch) {
            log.warn(
                    "Stopping stale shard {} of {} (epoch {}) on {}: a newer copy runs elsewhere",
                    shardId,
                    type.name(),
                    epoch,
                    node.nodeName());
            drop(slot, local);
            node.regionChanged();
        }
    }

    /**
     * The store refused a write of a shard's entity as stale: a newer allocation of the shard exists, so this
     * incarnation stops at once and the coordinator hears it no longer hosts it. Any thread.
     */
    void shardFenced(int shardId, long epoch) {
        node.runOnControlLater(() -> {
            ShardSlot slot = slots[shardId];
            Shard local = slot.local;
            if (local != null && local.epoch() == epoch) {
                log.warn(
                        "Shard {} of {} on {} was allocated elsewhere since epoch {} (the store refused a write as "
                                + "stale); stopping it",
                        shardId,
                        type.name(),
                        node.nodeName(),
                        epoch);
                drop(slot, local);
                node.stopServingShard();
            }
        });
    }

    /** Parks an entity whose message waits for the node to serve again. */
    void park(EntityCell cell) {
        node.park(cell);
    }

    /**
     * After a lapse of the lease: drops every hosted shard allocated elsewhere since (its epoch in the store is newer
     * than its own). Control thread.
     *
     * @param current the current epoch of each shard of the type in the store
     */
    void dropStale(Map<Integer, Long> current) {
        for (ShardSlot slot : slots) {
            Shard local = slot.local;
            if (local != null && current.getOrDefault(slot.shardId, 0L) > local.epoch()) {
                log.warn(
                        "Shard {} of {} on {} was allocated elsewhere (epoch {}) while this node had no lease "
                                + "(epoch {}); stopping it",
                        slot.shardId,
                        type.name(),
                        node.nodeName(),
                        current.get(slot.shardId),
                        local.epoch());
                drop(slot, local);
            }
        }
    }

    /** Drops every hosted shard (their state could not be checked). Control thread. */
    void dropHosted() {
        for (ShardSlot slot : slots) {
            Shard local = slot.local;
            if (local != null) {
                drop(slot, local);
            }
        }
    }

    /** Stops a shard's entities now (their state is stored already) and forgets the shard and its home. */
    private void drop(ShardSlot slot, Shard local) {
        local.dropped = true;
        local.stopping = true;
        slot.local = null;
        slot.handOff = null;
        synchronized (slot) {
            if (slot.home != null && slot.home.equals(node.self())) {
                slot.home = null;
            }
        }
        local.stop();
        node.unparkAll();
    }

    /**
     * The node stopped serving (it lost its side or its lease): every hosted shard stops at once, every home is
     * forgotten, and what waits for a home fails. Control thread.
     */
    void dropAll(RuntimeException reason) {
        dropHosted();
        for (ShardSlot slot : slots) {
            synchronized (slot) {
                slot.home = null;
            }
        }
        dropBuffers(reason);
    }

    /** Live entities per hosted shard. */
    Map<Integer, Integer> entityCounts() {
        Map<Integer, Integer> counts = new TreeMap<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local;
            if (s != null) {
                counts.put(slot.shardId, s.entityCount());
            }
        }
        return counts;
    }

    /** Live entity ids per hosted shard. */
    Map<Integer, List<String>> entityIds() {
        Map<Integer, List<String>> ids = new TreeMap<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local;
            if (s != null) {
                List<String> list = s.entityIds();
                list.sort(null);
                ids.put(slot.shardId, list);
            }
        }
        return ids;
    }

    /** Stops every hosted entity. */
    CompletableFuture<Void> stopAll() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local;
            if (s != null) {
                all.add(s.stop());
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public String toString() {
        return "Region[" + type.name() + " on " + node.nodeName() + (proxyOnly ? ", proxy-only" : "") + "]";
    }
}
