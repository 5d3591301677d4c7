package dev.sharding.internal.codec;

import java.io.Serial;

/**
 * A frame that cannot be read: truncated, an unknown tag, a length out of bounds.
 */
public final class MalformedFrameException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong with the frame
     */
    public MalformedFrameException(String message) {
        super(message);
    }
}
