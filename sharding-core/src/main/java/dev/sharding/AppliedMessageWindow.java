package dev.sharding;

import java.time.Duration;
import java.util.Objects;

/**
 * How many ids of applied messages each entity of a type keeps, and for how long: a message retried with a kept id
 * gets the recorded reply; one retried after its id left the window is applied again. The ids are written with the
 * entity's state on every write of a message with an id, so a larger window costs bytes on each write. Part of
 * {@link EntityTypeSettings}; the properties {@code sharding.entities.<type>.applied-messages.*}.
 *
 * @param maxCount the most ids kept per entity, the oldest dropped first (at least 1)
 * @param maxAge how long an id is kept after its message was applied (positive)
 */
public record AppliedMessageWindow(int maxCount, Duration maxAge) {

    /** The defaults: 64 ids, for an hour. */
    public static final AppliedMessageWindow DEFAULT = new AppliedMessageWindow(64, Duration.ofHours(1));

    /** Checks the values. */
    public AppliedMessageWindow {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxCount < 1 || maxCount > 100_000) {
            throw new InvalidSettingException("applied-messages.max-count", maxCount, "must be between 1 and 100000");
        }
        if (maxAge.isNegative() || maxAge.isZero()) {
            throw new InvalidSettingException("applied-messages.max-age", maxAge, "must be positive");
        }
    }
}
