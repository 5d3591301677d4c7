package dev.sharding.sample;

import java.io.Serial;

/**
 * A request the API refuses before it reaches any account: an invalid id or deposit body. Answered with 400.
 */
class BadRequestException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    BadRequestException(String message) {
        super(message);
    }
}
