package dev.sharding.spi;

import dev.sharding.ShardingException;
import java.io.Serial;

/**
 * An append of events was refused because the entity's last sequence number is not the one the appender expected:
 * another append (a second writer, or one the appender does not know committed) came first. Nothing was changed. The
 * appender's view of the entity is out of date: it recovers the entity again ({@link EventJournal#recover}) before
 * it appends again.
 */
public class SequenceConflictException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    /** The entity's last sequence number when the append was refused. */
    private final long actualLastSequenceNr;

    /**
     * Creates the exception.
     *
     * @param typeName the entity type
     * @param entityId the entity id
     * @param expected the last sequence number the appender expected
     * @param actual the entity's last sequence number
     */
    public SequenceConflictException(String typeName, String entityId, long expected, long actual) {
        super("Append of events to [" + typeName + "/" + entityId + "] after sequence number " + expected
                + " refused: the entity's last sequence number is " + actual);
        this.actualLastSequenceNr = actual;
    }

    /**
     * The entity's last sequence number when the append was refused.
     *
     * @return the number
     */
    public long actualLastSequenceNr() {
        return actualLastSequenceNr;
    }
}
