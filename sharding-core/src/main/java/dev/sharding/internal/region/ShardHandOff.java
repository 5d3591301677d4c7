package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.internal.protocol.ShardStopped;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The handoff of one shard hosted on this node, at its owner, with all of its state:
 *
 * <ol>
 * <li>Every region of the type (this one included) buffers the shard's messages from {@code BeginHandOff} on and
 * acknowledges to the owner once no send to the old home is under way ({@link #acknowledged}). Acknowledgements may
 * come before {@code HandOff} does.</li>
 * <li>{@code HandOff} names the regions to wait for ({@link #handOff}) and starts the deadline,
 * {@code handoff-timeout}. Entities keep running meanwhile: messages sent before an acknowledgement arrive before
 * it.</li>
 * <li>Once every named region still in the view has acknowledged, or at the deadline, the shard stops taking
 * messages and stops its entities after the messages in their mailboxes; entities still running at the deadline are
 * stopped forcibly ({@link #check}).</li>
 * <li>Then the owner forgets the shard and reports {@code ShardStopped} with the stored state of the entities it
 * stopped, for the new home; with remembered entities, only after the ids started here lately are stored.</li>
 * </ol>
 *
 * <p>Control thread only. A handoff is forgotten when it completes or when its shard is dropped.
 */
final class ShardHandOff {

    private static final Logger log = LoggerFactory.getLogger(ShardHandOff.class);

    private final Region<?> region;

    private final RegionHost node;

    private final ShardSlot slot;

    /** The regions whose acknowledgement the handoff waits for, once {@code HandOff} arrived. */
    private @Nullable List<Member> awaited;

    private final Set<Member> acks = new HashSet<>();

    private long deadlineNanos;

    /** When {@code BeginHandOff} arrived, for the handoff's time in the metrics. */
    private final long beganNanos = System.nanoTime();

    ShardHandOff(Region<?> region, RegionHost node, ShardSlot slot) {
        this.region = region;
        this.node = node;
        this.slot = slot;
    }

    /** Whether {@code HandOff} arrived: the handoff is under way. */
    boolean started() {
        return awaited != null;
    }

    /** A region acknowledged {@code BeginHandOff}: every message it sent before has arrived. */
    void acknowledged(Member from) {
        acks.add(from);
        check();
    }

    /** The coordinator names the regions to wait for; repeated {@code HandOff}s change nothing. */
    void handOff(List<Member> regions) {
        if (awaited == null) {
            awaited = List.copyOf(regions);
            deadlineNanos = System.nanoTime()
                    + node.services().settings().handoffTimeout().toNanos();
        }
        check();
    }

    /** Stops the shard once every awaited region still in the view acknowledged, or the deadline passed. */
    void check() {
        List<Member> regions = awaited;
        Shard local = slot.local();
        if (regions == null || local == null || local.stopping()) {
            return;
        }
        List<Member> members = node.view().members();
        List<Member> missing = regions.stream()
                .filter(m -> members.contains(m) && !acks.contains(m))
                .toList();
        if (!missing.isEmpty()) {
            if (System.nanoTime() - deadlineNanos < 0) {
                return;
            }
            log.warn(
                    "Handoff of shard {} of {}: no acknowledgement from {} within handoff-timeout; stopping it"
                            + " anyway",
                    slot.shardId(),
                    region.typeName(),
                    missing);
        }
        local.stopDelivering();
        region.handOffs().whenQuiet(slot, () -> {
            long left = Math.max(0, deadlineNanos - System.nanoTime());
            local.stop().whenComplete((v, t) -> node.plane().control().execute(() -> done(local)));
            node.plane()
                    .control()
                    .schedule(
                            () -> {
                                if (slot.local() == local) {
                                    int forced = local.forceStop();
                                    log.warn(
                                            "Handoff of shard {} of {}: {} entities did not stop within handoff-timeout and were"
                                                    + " stopped forcibly",
                                            slot.shardId(),
                                            region.typeName(),
                                            forced);
                                    done(local);
                                }
                            },
                            left,
                            TimeUnit.NANOSECONDS);
        });
    }

    private void done(Shard local) {
        if (!slot.unhost(local)) {
            return;
        }
        region.metrics().handedOff(System.nanoTime() - beganNanos);
        ShardStopped stopped = new ShardStopped(region.typeName(), slot.shardId(), local.epoch(), local.transferOut());
        if (!region.remembersEntities()) {
            node.plane().sendToCoordinator(stopped);
        } else {
            // the new home reads the shard's remembered ids when it starts it: the ones started here lately first
            region.flushRemembered(slot.shardId())
                    .whenComplete((v, t) -> node.plane().control().execute(() -> {
                        node.plane().sendToCoordinator(stopped);
                        node.events().regionChanged();
                    }));
        }
        node.events().regionChanged();
    }
}
