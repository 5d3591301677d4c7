package dev.sharding;

import java.time.Duration;
import java.util.Objects;

/**
 * How much a node queues toward one member that reads more slowly than the node sends, how long its threads wait for
 * room there, and when it reports such a member to failure detection. Part of {@link ShardingSettings}.
 *
 * <p>A thread that may wait (the application's, an entity's, the store's) waits at most {@code maxWait} for room in
 * the queue toward a member; then its frame is refused: an ask fails with {@link MemberBehindException}, a tell is
 * dropped and counted, a reply is dropped (its asker times out). Threads that never wait (those delivering received
 * messages, the control thread) are refused at once when the queue holds {@code maxQueuedBytes}. Traffic to the other
 * members goes on.
 *
 * @param maxWait the longest a thread waits for room in the queue toward one member before its message is refused;
 *     zero refuses at once
 * @param maxQueuedBytes the most bytes queued toward one member (and, separately, in the queue of JGroups' own
 *     messages to it that are sent while delivering); a control reserve of a quarter of it comes on top, and threads
 *     that may wait wait once a quarter of it is queued
 * @param suspectAfter how long a member may stay behind (messages queued toward it and none sent, or a send to it not
 *     returning) before it is reported to failure detection, which removes it from the view as if it had crashed;
 *     zero for never
 */
public record BackpressureSettings(Duration maxWait, long maxQueuedBytes, Duration suspectAfter) {

    /** Default longest wait for room toward one member. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMillis(50);

    /** Default most bytes queued toward one member: 4 MiB. */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 4L * 1024 * 1024;

    /** Default time a member may stay behind before it is suspected. */
    public static final Duration DEFAULT_SUSPECT_AFTER = Duration.ofSeconds(5);

    /** The smallest bound accepted: 256 KiB, so that a 60 KiB fragment and a reserve fit. */
    public static final long MIN_MAX_QUEUED_BYTES = 256 * 1024;

    /** The defaults. */
    public static final BackpressureSettings DEFAULT =
            new BackpressureSettings(DEFAULT_MAX_WAIT, DEFAULT_MAX_QUEUED_BYTES, DEFAULT_SUSPECT_AFTER);

    /**
     * Checks the arguments are not null.
     */
    public BackpressureSettings {
        Objects.requireNonNull(maxWait, "maxWait");
        Objects.requireNonNull(suspectAfter, "suspectAfter");
    }

    /**
     * Copy with another longest wait.
     *
     * @param value the wait
     * @return the copy
     */
    public BackpressureSettings withMaxWait(Duration value) {
        return new BackpressureSettings(value, maxQueuedBytes, suspectAfter);
    }

    /**
     * Copy with another bound per member.
     *
     * @param value the bytes
     * @return the copy
     */
    public BackpressureSettings withMaxQueuedBytes(long value) {
        return new BackpressureSettings(maxWait, value, suspectAfter);
    }

    /**
     * Copy with another time before a member behind is suspected.
     *
     * @param value the time, zero for never
     * @return the copy
     */
    public BackpressureSettings withSuspectAfter(Duration value) {
        return new BackpressureSettings(maxWait, maxQueuedBytes, value);
    }

    /**
     * Checks these settings.
     *
     * @throws InvalidSettingException naming the first invalid setting, its value and the rule
     */
    void validate() {
        if (maxWait.isNegative() || maxWait.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new InvalidSettingException("backpressure.max-wait", maxWait, "must be between 0 and 60 seconds");
        }
        if (maxQueuedBytes < MIN_MAX_QUEUED_BYTES || maxQueuedBytes > Integer.MAX_VALUE) {
            throw new InvalidSettingException(
                    "backpressure.max-queued-bytes",
                    maxQueuedBytes,
                    "must be between " + MIN_MAX_QUEUED_BYTES + " and " + Integer.MAX_VALUE + " bytes");
        }
        if (suspectAfter.isNegative()) {
            throw new InvalidSettingException("backpressure.suspect-after", suspectAfter, "must not be negative");
        }
        if (!suspectAfter.isZero() && suspectAfter.compareTo(maxWait) <= 0) {
            throw new InvalidSettingException(
                    "backpressure.suspect-after",
                    suspectAfter,
                    "must be zero (never) or longer than backpressure.max-wait (" + maxWait + ")");
        }
    }
}
