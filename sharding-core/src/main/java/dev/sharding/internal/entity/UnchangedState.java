package dev.sharding.internal.entity;

import dev.sharding.internal.protocol.EntityTransfer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Stores the ids of the messages an entity applied when its instance never asked for its state: the state as it is
 * stored, written again with the ids (or, for an event-sourced entity, an append of no event with the ids).
 */
final class UnchangedState {

    private UnchangedState() {}

    /**
     * Stores the ids with the unchanged state.
     *
     * @param stored the state as read or carried, or {@code null} for none
     * @param applied the encoded ids
     * @return the state as stored now, once durable
     */
    static CompletableFuture<EntityTransfer> storeWithIds(
            EntityServices services,
            EntityCell cell,
            long epoch,
            @Nullable EntityTransfer stored,
            byte @Nullable [] applied) {
        try {
            if (services.events() != null) {
                long last = stored == null ? 0 : stored.version();
                byte[] state = stored == null ? null : stored.state();
                return services.store()
                        .appendEvents(
                                cell.typeName(), cell.entityId(), cell.shardId(), epoch, last, List.of(), applied, null)
                        .thenApply(seq -> new EntityTransfer(cell.entityId(), state, seq, applied));
            }
            byte[] state = stored == null || stored.state() == null ? new byte[0] : stored.state();
            return services.store()
                    .write(cell.typeName(), cell.entityId(), cell.shardId(), epoch, state, applied)
                    .thenApply(s -> new EntityTransfer(
                            cell.entityId(), state.length == 0 ? null : state, s.version(), applied));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
