package dev.sharding.spi;

/**
 * The recorder of one entity type on one node ({@link ShardingMetrics#entityType}). Called on hot paths from many
 * threads: thread-safe, non-blocking, and without allocation per call.
 */
public interface EntityTypeMetrics {

    /** Records nothing. */
    EntityTypeMetrics NONE = new EntityTypeMetrics() {};

    /**
     * An ask sent on this node completed: answered, failed or timed out. Called once per ask, on the thread that
     * completed it, before the caller's future is completed (so a caller that reads the meter after the future sees
     * its ask counted). An ask its caller cancelled counts as what ended it here.
     *
     * @param outcome how it ended
     * @param remote whether it was last sent to another node (false when the entity was on this node, or when no
     *     home was known before it ended)
     * @param nanos from the ask to its outcome
     */
    default void askCompleted(AskOutcome outcome, boolean remote, long nanos) {}

    /** A tell was accepted on this node (sent, or buffered until its shard's home is known). */
    default void told() {}

    /**
     * A tell was dropped: nobody waits for it, so this is the only trace besides the log. Asks are never counted
     * here: they fail their caller, with an {@link AskOutcome}.
     *
     * @param reason why
     */
    default void dropped(DropReason reason) {}

    /** An entity was passivated: stopped because it was idle or over the limit of live entities. */
    default void passivated() {}

    /**
     * A shard hosted here was handed off: from the coordinator's {@code BeginHandOff} to the shard stopped and
     * reported with its entities' state.
     *
     * @param nanos how long it took
     */
    default void handedOff(long nanos) {}

    /**
     * An entity's state write completed, as the entity saw it: from the write to the store's answer (durable, or
     * failed). The entity's reply waits for it.
     *
     * @param nanos how long the write took
     * @param succeeded whether the store said it is durable
     */
    default void stateWritten(long nanos, boolean succeeded) {}

    /** How an ask ended; {@link #tag()} is the value of the {@code outcome} tag. */
    enum AskOutcome {
        /** The entity replied. */
        SUCCESS("success"),
        /** No reply within the ask's timeout ({@link dev.sharding.AskTimeoutException}). */
        TIMEOUT("timeout"),
        /**
         * The entity could not be reached: its node left before replying, this node is cut off from the cluster or not
         * running, or no node may host it now.
         */
        UNREACHABLE("unreachable"),
        /**
         * Refused before any handler ran: a type without a handler, a message or reply that does not decode, an
         * invalid id, a full buffer.
         */
        REJECTED("rejected"),
        /**
         * The handler threw, or the state write failed ({@link dev.sharding.EntityException}, or
         * {@link dev.sharding.StoreUnavailableException} when the store failed).
         */
        FAILED("failed");

        private final String tag;

        AskOutcome(String tag) {
            this.tag = tag;
        }

        /** {@return the tag value} */
        public String tag() {
            return tag;
        }
    }

    /** Why a tell was dropped; {@link #tag()} is the value of the {@code reason} tag. */
    enum DropReason {
        /** The region's buffer for messages waiting for shard homes was full ({@code buffer-size}). */
        BUFFER_FULL("buffer-full"),
        /** The node receiving it refused it: undecodable, an invalid id, or a shard the id does not map to. */
        REJECTED("rejected"),
        /** The node receiving it is on the losing side of a partition and serves nobody. */
        PARTITIONED("partitioned"),
        /** It was still buffered when the node stopped, or it could not be sent once its shard's home was known. */
        STOPPED("stopped"),
        /**
         * The node hosting its entity was behind: the queue toward it stayed full for
         * {@code sharding.backpressure.max-wait}, or was full for a thread that never waits.
         */
        BACKPRESSURE("backpressure");

        private final String tag;

        DropReason(String tag) {
            this.tag = tag;
        }

        /** {@return the tag value} */
        public String tag() {
            return tag;
        }
    }
}
