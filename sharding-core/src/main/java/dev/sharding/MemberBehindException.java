package dev.sharding;

import java.io.Serial;

/**
 * The message was refused, and not sent, because the node that hosts the entity reads more slowly than this node
 * sends: the queue toward it stayed full for {@code sharding.backpressure.max-wait}. Messages to the other nodes go
 * on. A retry may succeed once that node catches up, or once it is removed from the cluster for staying behind
 * ({@code sharding.backpressure.suspect-after}) and the entity moves.
 */
public class MemberBehindException extends EntityUnreachableException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public MemberBehindException(String message) {
        super(message);
    }
}
