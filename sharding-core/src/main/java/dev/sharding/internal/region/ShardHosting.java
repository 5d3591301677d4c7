package dev.sharding.internal.region;

import dev.sharding.internal.ask.ReplySink;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.entity.Signal;
import dev.sharding.internal.protocol.EntityTransfer;
import dev.sharding.internal.protocol.RegionInfo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards of one region hosted on this node ({@link Shard}, one per {@link ShardSlot} at most): started by
 * {@code HostShard} with the state the previous owner carried and the remembered entities, dropped without a handoff
 * when the coordinator found a newer copy, the store refused a write as stale, or the node lost its lease, and
 * reported as they are (the region's {@link RegionInfo}, entity counts and ids).
 *
 * <p>Hosting changes on the control thread only.
 */
public final class ShardHosting {

    private static final Logger log = LoggerFactory.getLogger(ShardHosting.class);

    private final Region<?> region;

    private final RegionHost node;

    private final String typeName;

    private final ShardSlot[] slots;

    private final ShardRouter router;

    private final boolean proxyOnly;

    /** The region's entities, as the shards started here give them to their entities. */
    private final RegionEntities entities;

    /** The remember-entities journal, or {@code null} for a type that does not remember. */
    private final @Nullable RememberJournal journal;

    ShardHosting(
            Region<?> region,
            RegionHost node,
            ShardSlot[] slots,
            ShardRouter router,
            boolean proxyOnly,
            RegionEntities entities,
            @Nullable RememberJournal journal) {
        this.region = region;
        this.node = node;
        this.typeName = region.typeName();
        this.slots = slots;
        this.router = router;
        this.proxyOnly = proxyOnly;
        this.entities = entities;
        this.journal = journal;
    }

    /**
     * The coordinator told this region to host a shard. Control thread.
     *
     * @return whether the shard is hosted here now (false while an earlier incarnation is still stopping)
     */
    boolean host(int shardId, long epoch, long transferEpoch, List<EntityTransfer> transfer) {
        if (proxyOnly || shardId < 0 || shardId >= slots.length) {
            log.error("Coordinator asked proxy-only or out-of-range region {} to host shard {}", region, shardId);
            return false;
        }
        if (!node.serving().serving()) {
            return false; // no lease yet, or lost: the coordinator repeats HostShard
        }
        ShardSlot slot = slots[shardId];
        Shard local = slot.local();
        if (local != null && local.stopping()) {
            return false; // the coordinator repeats HostShard; by then the old incarnation has stopped
        }
        if (local != null && local.epoch() != epoch) {
            return false; // a repeated HostShard of an incarnation that was dropped meanwhile
        }
        boolean started = local == null;
        Shard hosted = local;
        if (hosted == null) {
            List<EntityTransfer> carried = transfer;
            if (!transfer.isEmpty() && transferEpoch + 1 != epoch) {
                // another allocation came between the incarnation that stopped and this one: the store may hold
                // newer state than what was carried, so every entity reads its state from the store
                log.info(
                        "Shard {} of {}: state carried from epoch {} is not the one before epoch {}; reading it "
                                + "from the store",
                        shardId,
                        typeName,
                        transferEpoch,
                        epoch);
                carried = List.of();
            }
            hosted = new Shard(entities, entities.services(), shardId, epoch, carried);
            slot.host(hosted);
        }
        router.publish(slot, node.view().self());
        if (started && journal != null) {
            startRemembered(shardId, hosted);
        }
        return true;
    }

    /** Starts the remembered entities of a shard that has just started here. */
    private void startRemembered(int shardId, Shard local) {
        if (journal != null) {
            journal.startRemembered(
                    shardId,
                    () -> slots[shardId].local() == local && !local.stopping(),
                    id -> local.deliver(id, Signal.Start.INSTANCE, ReplySink.TELL));
        }
    }

    /** The live entities of a shard hosted here and not stopping, or {@code null}. */
    @Nullable
    Collection<EntityCell> liveCells(int shardId) {
        Shard local = slots[shardId].local();
        return local == null || local.stopping() ? null : local.cells();
    }

    /** Shards hosted here now. */
    int count() {
        int n = 0;
        for (ShardSlot slot : slots) {
            if (slot.local() != null) {
                n++;
            }
        }
        return n;
    }

    /** The region and every shard it hosts, with epochs, as reported to the coordinator. */
    RegionInfo info() {
        List<Shard> hosted = new ArrayList<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local();
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
        return new RegionInfo(typeName, proxyOnly, journal != null, slots.length, shards, epochs);
    }

    // ---- dropping shards without a handoff -----------------------------------------------------------------------

    /**
     * Stops one incarnation of a shard at once, without handing it off, and forgets its home: the coordinator found a
     * newer copy elsewhere. Control thread.
     */
    void stopShard(int shardId, long epoch) {
        if (shardId < 0 || shardId >= slots.length) {
            return;
        }
        ShardSlot slot = slots[shardId];
        Shard local = slot.local();
        if (local != null && local.epoch() == epoch) {
            log.warn(
                    "Stopping stale shard {} of {} (epoch {}) on {}: a newer copy runs elsewhere",
                    shardId,
                    typeName,
                    epoch,
                    node.view().nodeName());
            drop(slot, local);
            node.events().regionChanged();
        }
    }

    /**
     * The store refused a write of a shard's entity as stale: a newer allocation of the shard exists, so this
     * incarnation stops at once and the coordinator hears it no longer hosts it. Any thread.
     */
    void shardFenced(int shardId, long epoch) {
        node.plane().runOnControlLater(() -> {
            ShardSlot slot = slots[shardId];
            Shard local = slot.local();
            if (local != null && local.epoch() == epoch) {
                log.warn(
                        "Shard {} of {} on {} was allocated elsewhere since epoch {} (the store refused a write as "
                                + "stale); stopping it",
                        shardId,
                        typeName,
                        node.view().nodeName(),
                        epoch);
                drop(slot, local);
                node.events().stopServingShard();
            }
        });
    }

    /**
     * After a lapse of the lease: drops every hosted shard allocated elsewhere since (its epoch in the store is newer
     * than its own). Control thread.
     *
     * @param current the current epoch of each shard of the type in the store
     */
    public void dropStale(Map<Integer, Long> current) {
        for (ShardSlot slot : slots) {
            Shard local = slot.local();
            if (local != null && current.getOrDefault(slot.shardId(), 0L) > local.epoch()) {
                log.warn(
                        "Shard {} of {} on {} was allocated elsewhere (epoch {}) while this node had no lease "
                                + "(epoch {}); stopping it",
                        slot.shardId(),
                        typeName,
                        node.view().nodeName(),
                        current.get(slot.shardId()),
                        local.epoch());
                drop(slot, local);
            }
        }
    }

    /** Drops every hosted shard (their state could not be checked). Control thread. */
    public void dropHosted() {
        for (ShardSlot slot : slots) {
            Shard local = slot.local();
            if (local != null) {
                drop(slot, local);
            }
        }
    }

    /** Stops a shard's entities now (their state is stored already) and forgets the shard and its home. */
    private void drop(ShardSlot slot, Shard local) {
        local.drop();
        slot.unhost(local);
        slot.clearHomeAt(node.view().self());
        local.stop();
        node.serving().unparkAll();
    }

    /**
     * The node stopped serving (it lost its side or its lease): every hosted shard stops at once, every home is
     * forgotten, and what waits for a home fails. Control thread.
     */
    public void dropAll(RuntimeException reason) {
        dropHosted();
        for (ShardSlot slot : slots) {
            slot.clearHome();
        }
        router.dropBuffers(reason);
    }

    // ---- what the hosted shards hold -----------------------------------------------------------------------------

    /** Live entities per hosted shard. */
    Map<Integer, Integer> entityCounts() {
        Map<Integer, Integer> counts = new TreeMap<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local();
            if (s != null) {
                counts.put(slot.shardId(), s.entityCount());
            }
        }
        return counts;
    }

    /** Live entity ids per hosted shard. */
    Map<Integer, List<String>> entityIds() {
        Map<Integer, List<String>> ids = new TreeMap<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local();
            if (s != null) {
                List<String> list = s.entityIds();
                list.sort(null);
                ids.put(slot.shardId(), list);
            }
        }
        return ids;
    }

    /** Stops every hosted entity. */
    public CompletableFuture<Void> stopAll() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (ShardSlot slot : slots) {
            Shard s = slot.local();
            if (s != null) {
                all.add(s.stop());
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }
}
