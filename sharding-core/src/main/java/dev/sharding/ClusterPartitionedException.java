package dev.sharding;

import java.io.Serial;

/**
 * This node cannot serve entities now: it is on the losing side of a network partition, it was frozen or cut off
 * long enough for the rest of the cluster to take over its shards, or it has lost contact with its coordinator. It
 * refuses every message until the partition heals and it has rejoined the cluster. The message had no effect.
 */
public class ClusterPartitionedException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message why the node cannot serve
     */
    public ClusterPartitionedException(String message) {
        super(message);
    }
}
