package dev.sharding.internal.transport;

import dev.sharding.Member;
import java.util.List;

/**
 * How a node talks to the others: membership views and frames to one member. Hides JGroups from the region and
 * coordinator logic. Frames from one member arrive in the order it sent them unless sent out of band.
 */
public interface Transport {

    /**
     * Joins the cluster. Blocks until this node is a member.
     *
     * @param listener gets every frame and view from now on; its methods must not block
     * @throws Exception if the cluster cannot be joined
     */
    void start(Listener listener) throws Exception;

    /**
     * This node.
     *
     * @return the member, valid after {@link #start(Listener)}
     */
    Member self();

    /**
     * Sends a data frame (an envelope, a reply, a failure) to one member. Waits at most the backpressure setting's
     * longest wait for room toward that member, and not at all on a thread that never waits
     * ({@link SendingThreads}); a frame to a member that is gone is dropped.
     *
     * @param to the member, never this node
     * @param frame the frame
     * @param outOfBand whether it may overtake earlier frames (replies)
     * @return false when the frame was refused because the member is behind: nothing was sent, and the caller
     *     fails the ask or drops and counts the tell
     */
    boolean send(Member to, byte[] frame, boolean outOfBand);

    /**
     * Sends a tell's envelope to one member, as {@link #send(Member, byte[], boolean)} does, but from an application's
     * thread it waits longer for room, while the member keeps taking frames ({@link SendingThreads}).
     *
     * @param to the member, never this node
     * @param frame the frame
     * @return false when the frame was refused because the member is behind
     */
    default boolean sendTell(Member to, byte[] frame) {
        return send(to, frame, false);
    }

    /**
     * Sends a control frame (leases, shard homes, registrations) to one member, in order with its data frames. Never
     * waits; it may use a reserve beyond the bound of data frames, so that data does not starve it.
     *
     * @param to the member, never this node
     * @param frame the frame
     * @param outOfBand whether it may overtake earlier frames
     * @return false when the frame was refused because even the reserve toward that member is full
     */
    default boolean sendControl(Member to, byte[] frame, boolean outOfBand) {
        return send(to, frame, outOfBand);
    }

    /**
     * Sends a slice of an array as a frame (forwarding a received frame without copying it). The array must not
     * change afterwards.
     *
     * @param to the member, never this node
     * @param buffer the array holding the frame
     * @param offset where the frame starts
     * @param length its length
     * @param outOfBand whether it may overtake earlier frames
     * @return false when the frame was refused because the member is behind ({@link #send(Member, byte[], boolean)})
     */
    default boolean send(Member to, byte[] buffer, int offset, int length, boolean outOfBand) {
        return send(
                to,
                offset == 0 && length == buffer.length
                        ? buffer
                        : java.util.Arrays.copyOfRange(buffer, offset, offset + length),
                outOfBand);
    }

    /**
     * How long the transport takes at most to notice that a member hangs or is cut off, once started.
     *
     * @return the time in nanoseconds, or -1 when unknown
     */
    default long failureDetectionNanos() {
        return -1;
    }

    /**
     * The most bytes queued now toward one member, waiting to be written.
     *
     * @return the bytes
     */
    default long maxQueuedBytes() {
        return 0;
    }

    /**
     * Frames refused or dropped so far because the member they were for was behind.
     *
     * @return the count
     */
    default long refusedFrames() {
        return 0;
    }

    /**
     * Members reported to failure detection so far because they stayed behind.
     *
     * @return the count
     */
    default long membersReportedBehind() {
        return 0;
    }

    /**
     * Stops as a crash would: nothing more is sent and nobody is told. For tests of failure handling.
     */
    default void crash() {
        close();
    }

    /**
     * Leaves the cluster; the others see this node gone at once.
     */
    void close();

    /**
     * What the transport reports.
     */
    interface Listener {

        /**
         * A frame arrived. Runs on a transport thread; at most one thread at a time per sender for frames that are
         * not out of band.
         *
         * @param from the sender
         * @param buffer the array holding the frame
         * @param offset where it starts
         * @param length its length
         */
        void onFrame(Member from, byte[] buffer, int offset, int length);

        /**
         * A new membership view was installed.
         *
         * @param members every member, oldest first: the first is the coordinator
         */
        void onView(List<Member> members);
    }
}
