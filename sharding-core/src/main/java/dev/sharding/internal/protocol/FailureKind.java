package dev.sharding.internal.protocol;

/**
 * Why an ask failed where the entity lives; each kind maps to one exception at the caller. Wire codes are stable.
 */
public enum FailureKind {
    /** The handler or the entity's creation threw. */
    ENTITY_FAILED(1),
    /** No handler takes the message's type. */
    UNHANDLED(2),
    /** The codec refused the message or the reply, or the type or id was invalid. */
    REJECTED(3),
    /** The buffer of a region on the way was full. */
    BUFFER_FULL(4),
    /** The node hosting the entity is stopping. */
    UNAVAILABLE(5),
    /** The node that got the message is partitioned from the cluster, or its lease to serve expired. */
    PARTITIONED(6),
    /** The store failed to write the entity's state, or to read it for the entity to start; no effect, retryable. */
    STORE_FAILED(7),
    /** The connection to the database broke while the entity's state was committed: it may have been stored, or not. */
    STORE_OUTCOME_UNKNOWN(8),
    /** The message's id was applied lately to another message. */
    KEY_REUSED(9);

    private final int code;

    FailureKind(int code) {
        this.code = code;
    }

    /**
     * The wire code.
     *
     * @return the code
     */
    public int code() {
        return code;
    }

    /**
     * The kind with a wire code.
     *
     * @param code the code
     * @return the kind
     */
    public static FailureKind of(int code) {
        for (FailureKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        throw new dev.sharding.internal.codec.MalformedFrameException("Unknown failure kind " + code);
    }
}
