package dev.sharding;

/**
 * A node's counts of traffic it held back or dropped ({@link ShardingNode#traffic()}): what backpressure refused, and
 * what the node would not take from members that may not send it. The Spring Boot starter shows them as meters
 * ({@code sharding.backpressure.*}).
 */
public interface NodeTraffic {

    /**
     * {@return how many control messages this node dropped since start because their sender may not send them} A
     * sender may not when it is not the coordinator of the current view, or not a member.
     */
    long droppedControlMessages();

    /**
     * {@return the most bytes queued now toward one member, waiting to be sent} It stays below
     * {@code sharding.backpressure.max-queued-bytes} and a quarter more for control messages.
     */
    long maxQueuedBytes();

    /**
     * {@return how many frames this node refused or dropped since start because the member they were for was behind}
     * Asks among them failed with {@link MemberBehindException}, tells among them are also counted as dropped for
     * backpressure in their type's meters, and replies among them leave their askers to time out.
     */
    long refusedFrames();

    /**
     * {@return how many members this node reported to failure detection since start because they stayed behind for
     * {@code sharding.backpressure.suspect-after}}
     */
    long membersReportedBehind();
}
