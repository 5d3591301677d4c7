package dev.sharding.spi;

import java.util.concurrent.CompletableFuture;

/**
 * Where the projections of a {@link ShardingStore}'s journal keep how far each slice has gone: the global offset of
 * the last event a projection's worker handled. Part of {@link ShardingStore.Capability#EVENT_JOURNAL}: a store with a
 * journal keeps these too, and every method's default fails with {@link UnsupportedOperationException}.
 *
 * <p>Saving is a compare-and-set on the offset the worker read, so that a second instance of a worker (one that kept
 * running on a node cut off from the cluster until its lease lapsed) cannot move an offset back or skip what the other
 * handled: its save fails, and it reads the offset again.
 */
public interface ProjectionOffsets {

    /**
     * The offset a projection's slice has reached.
     *
     * @param projection the projection's name
     * @param slice the slice, from 0
     * @return the global offset of the last event handled, 0 before the first
     */
    default CompletableFuture<Long> projectionOffset(String projection, int slice) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getName() + " keeps no projection offsets"));
    }

    /**
     * Moves a projection's slice from one offset to the next, if it is still at the first.
     *
     * @param projection the projection's name
     * @param slice the slice
     * @param expected the offset the caller read (0 before the first save)
     * @param offset the new offset
     * @return whether it was saved; false when the slice is no longer at {@code expected}
     */
    default CompletableFuture<Boolean> saveProjectionOffset(String projection, int slice, long expected, long offset) {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getName() + " keeps no projection offsets"));
    }
}
