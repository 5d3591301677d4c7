package dev.sharding.internal.region;

import dev.sharding.ClusterPartitionedException;
import dev.sharding.Member;
import dev.sharding.ShardingSettings;
import dev.sharding.internal.ask.AskRegistry;
import dev.sharding.internal.entity.BlockedThreads;
import dev.sharding.internal.entity.EntityCell;
import dev.sharding.internal.protocol.FailureKind;
import dev.sharding.internal.protocol.ProtocolCodec;
import dev.sharding.internal.protocol.ProtocolMessage;
import dev.sharding.internal.transport.Transport;
import dev.sharding.spi.MessageCodec;
import dev.sharding.spi.MessageTracing;
import dev.sharding.spi.ShardingMetrics;
import dev.sharding.spi.ShardingStore;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * What a region (its router, its handoffs, its reply sinks) uses of the node it runs on, and nothing more: who the
 * node is, whether it may serve, how to reach members and the coordinator, what to tell the node when hosting changes,
 * its control thread, and the parts it shares with the node's other regions. The node's links implement it.
 */
public interface RegionHost {

    // ---- who the node is and whether it serves ----

    /** This member; throws before the node started. */
    Member self();

    String nodeName();

    /** The members of the current view. */
    List<Member> members();

    /** Whether a member is in the current view; on every message sent to another node. Any thread. */
    boolean isMember(Member member);

    /** Throws if the node does not take messages now: stopped, or cut off on the losing side of a partition. */
    void checkRunning();

    boolean isRunning();

    /** Why this node may not serve now (partitioned), or null. */
    @Nullable
    String partitionedReason();

    ClusterPartitionedException partitionedException(String reason);

    /** Whether this node may deliver to its entities now (its lease lasts). Any thread; on every message. */
    boolean serving();

    /** An entity waits for the node to serve again. Entity threads. */
    void park(EntityCell cell);

    /** Runs every waiting entity again. Any thread. */
    void unparkAll();

    // ---- sending ----

    void send(Member to, ProtocolMessage msg, boolean outOfBand);

    /** Sends to the current coordinator, if there is one. */
    void sendToCoordinator(ProtocolMessage msg);

    void sendFailure(Member to, long correlationId, FailureKind kind, String className, @Nullable String message);

    /** Asks the coordinator where a shard lives. Control thread. */
    void requestShardHome(String typeName, int shardId);

    // ---- telling the node ----

    /** A region's hosting changed. Control thread. */
    void regionChanged();

    /** A region stopped a shard on its own (fenced by the store): the coordinator hears what this node hosts now. */
    void stopServingShard();

    /** Asks for a passivation sweep at the next tick (a region went over its limit of live entities). */
    void requestSweep();

    // ---- the control thread ----

    /** Runs a task on the control thread later; false when the node stopped and did not take it. Any thread. */
    boolean runOnControlLater(Runnable task);

    /** The control thread as an executor, for parts that schedule their own retries. */
    ScheduledExecutorService control();

    /** A coarse clock, updated by the periodic tick, for idle times. */
    long clockMillis();

    // ---- parts shared with the node's other regions ----

    ShardingSettings settings();

    Transport transport();

    MessageCodec codec();

    /** Whether messages and replies delivered within the node go through the codec and back (a test mode). */
    boolean serializeLocalMessages();

    /** Where the node's counts and times go. */
    ShardingMetrics metrics();

    /** How the node traces messages; {@link MessageTracing#NONE} when it does not. */
    MessageTracing tracing();

    ProtocolCodec protocol();

    ShardingStore store();

    /**
     * The time on the store's clock, as this node can tell it (milliseconds since the epoch): what entities time their
     * applied-message ids by.
     */
    long storeMillis();

    /** Reports the node's own threads held too long. */
    BlockedThreads blockedThreads();

    AskRegistry asks();

    /** The entity executor. */
    ExecutorService executor();
}
