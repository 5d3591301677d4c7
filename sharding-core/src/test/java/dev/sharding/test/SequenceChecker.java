package dev.sharding.test;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EntityType;
import dev.sharding.ShardedEntity;
import java.util.HashMap;
import java.util.Map;

/**
 * A test entity that checks every sender's messages arrive in the order sent, with none missing or repeated.
 */
@ShardedEntity(type = "sequence", numberOfShards = 50)
public class SequenceChecker {

    private final EntityContext context;

    private final Map<String, Long> last = new HashMap<>();

    private long violations;

    private long received;

    /**
     * Creates the entity.
     *
     * @param context its context
     */
    public SequenceChecker(EntityContext context) {
        this.context = context;
    }

    /**
     * The type with a plain factory.
     *
     * @return the type
     */
    public static EntityType<SequenceChecker> type() {
        return EntityType.of(SequenceChecker.class, SequenceChecker::new);
    }

    /** One numbered message of a sender; numbers start at 1. */
    @EntityHandler
    public void on(Seq seq) {
        received++;
        long expected = last.getOrDefault(seq.sender(), 0L) + 1;
        if (seq.n() != expected) {
            violations++;
        }
        last.put(seq.sender(), seq.n());
    }

    /** Reports what arrived. */
    @EntityHandler
    public Report on(GetReport get) {
        return new Report(context.entityId(), context.nodeName(), Map.copyOf(last), violations, received);
    }

    /** A numbered message. @param sender who sent it @param n its number, from 1 */
    public record Seq(String sender, long n) {}

    /** Asks for the report. */
    public record GetReport() {}

    /**
     * What the entity saw.
     *
     * @param id entity id
     * @param node where it runs
     * @param last the last number per sender
     * @param violations messages out of order, missing or repeated
     * @param received messages received
     */
    public record Report(String id, String node, Map<String, Long> last, long violations, long received) {}
}
