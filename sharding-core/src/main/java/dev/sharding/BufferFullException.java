package dev.sharding;

import java.io.Serial;

/**
 * The message had to wait for its shard's home, and the region's buffer (setting {@code buffer-size}) was full; nothing was sent.
 */
public class BufferFullException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what went wrong
     */
    public BufferFullException(String message) {
        super(message);
    }
}
