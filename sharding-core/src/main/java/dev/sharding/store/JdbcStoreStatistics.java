package dev.sharding.store;

/**
 * Counters of a {@link JdbcShardingStore}'s group commits since it was created.
 *
 * @param batches transactions committed
 * @param operations operations in the committed transactions (writes, deletes, remembered updates, clears)
 * @param failedBatches batches whose every operation failed (after their retries)
 * @param largestBatch the most operations one committed transaction held
 */
public record JdbcStoreStatistics(long batches, long operations, long failedBatches, int largestBatch) {

    /**
     * Operations per committed transaction.
     *
     * @return the average batch size, 0 before the first commit
     */
    public double averageBatchSize() {
        return batches == 0 ? 0 : (double) operations / batches;
    }
}
