package dev.sharding.spi;

import java.util.Objects;
import java.util.Set;

/**
 * An event an event-sourced entity appends to its journal ({@link EventJournal#appendEvents}). Its sequence number is
 * not part of it: the events of one append take the numbers after the entity's last one, in list order.
 *
 * <p>Checked when made, so that bad input fails at the caller with a clear message and reaches no store: the event
 * type is 1 to {@value #MAX_NAME_LENGTH} characters, the version not negative, at most {@value #MAX_TAGS} tags, each
 * 1 to {@value #MAX_NAME_LENGTH} characters, and no name with a control character (below U+0020; the stores keep the
 * tags of an event in one text, separated by one). The payload is not copied here; a store copies what it keeps
 * before its append returns.
 *
 * @param eventType the name the event's class is stored under (stable across renames of the class)
 * @param eventVersion the version of the event's encoding under that name, for upcasting old events
 * @param payload the encoded event
 * @param tags the tags it can be read by across entities ({@link EventJournal#eventsByTag}); an immutable copy
 */
public record NewEvent(String eventType, int eventVersion, byte[] payload, Set<String> tags) {

    /** The longest event type name and tag. */
    public static final int MAX_NAME_LENGTH = 255;

    /** The most tags one event may have. */
    public static final int MAX_TAGS = 16;

    /**
     * Checks and copies the tags.
     *
     * @throws IllegalArgumentException when a name, the version or the tags break the rules above
     */
    public NewEvent {
        Objects.requireNonNull(payload, "payload");
        checkName("event type", eventType);
        if (eventVersion < 0) {
            throw new IllegalArgumentException(
                    "The version of event type [" + eventType + "] is " + eventVersion + "; it must not be negative");
        }
        tags = Set.copyOf(Objects.requireNonNull(tags, "tags"));
        if (tags.size() > MAX_TAGS) {
            throw new IllegalArgumentException("An event of type [" + eventType + "] has " + tags.size()
                    + " tags; at most " + MAX_TAGS + " are allowed");
        }
        for (String tag : tags) {
            checkName("tag", tag);
        }
    }

    /**
     * An event without tags.
     *
     * @param eventType the name the event's class is stored under
     * @param eventVersion the version of its encoding
     * @param payload the encoded event
     */
    public NewEvent(String eventType, int eventVersion, byte[] payload) {
        this(eventType, eventVersion, payload, Set.of());
    }

    /**
     * Checks an event type name or a tag: 1 to {@value #MAX_NAME_LENGTH} characters, none a control character.
     *
     * @param what "event type" or "tag", for the message
     * @param name the name
     * @throws IllegalArgumentException when it breaks the rule
     */
    static void checkName(String what, String name) {
        Objects.requireNonNull(name, what);
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("The " + what + " [" + shorten(name) + "] has " + name.length()
                    + " characters; it must have 1 to " + MAX_NAME_LENGTH);
        }
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) < ' ') {
                throw new IllegalArgumentException("The " + what + " [" + shorten(name)
                        + "] contains the control character U+" + String.format("%04X", (int) name.charAt(i))
                        + "; names may not contain any");
            }
        }
    }

    private static String shorten(String name) {
        return name.length() > 64 ? name.substring(0, 64) + "..." : name;
    }
}
