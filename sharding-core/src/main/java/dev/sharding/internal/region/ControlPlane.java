package dev.sharding.internal.region;

import dev.sharding.Member;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.ProtocolMessage;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * The node's control thread and clocks, and its protocol messages to members and to the coordinator, as a region uses
 * them: a role of {@link RegionHost}.
 */
public interface ControlPlane {

    /** Runs a task on the control thread later; false when the node stopped and did not take it. Any thread. */
    boolean runOnControlLater(Runnable task);

    /** The control thread as an executor, for parts that schedule their own retries. */
    ScheduledExecutorService control();

    /** A coarse clock, updated by the periodic tick, for idle times. */
    long clockMillis();

    /**
     * The time on the store's clock, as this node can tell it (milliseconds since the epoch): what entities time their
     * applied-message ids by.
     */
    long storeMillis();

    void send(Member to, ProtocolMessage msg, boolean outOfBand);

    /** Sends to the current coordinator, if there is one. */
    void sendToCoordinator(ProtocolMessage msg);

    void sendFailure(Member to, long correlationId, FailureKind kind, String className, @Nullable String message);

    /** Asks the coordinator where a shard lives. Control thread. */
    void requestShardHome(String typeName, int shardId);
}
