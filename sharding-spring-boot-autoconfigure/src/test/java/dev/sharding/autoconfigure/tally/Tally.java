package dev.sharding.autoconfigure.tally;

import dev.sharding.ApplyEvent;
import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.EventSourcedState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;
import dev.sharding.StoredEvent;
import java.util.Map;

/** An event-sourced entity bean: a tally of marks, the fold of its events. */
@ShardedEntity(type = "tally", numberOfShards = 10)
public class Tally {

    private final EntityContext context;

    private final EventSourcedState<Count, Event> state;

    /**
     * Made by the node, with its state injected.
     *
     * @param context the entity's context
     * @param state its event-sourced state
     */
    public Tally(EntityContext context, EventSourcedState<Count, Event> state) {
        this.context = context;
        this.state = state;
    }

    @InitialState
    static Count start() {
        return new Count(100, 0);
    }

    @ApplyEvent
    static Count apply(Count count, Event event) {
        if (event instanceof Marked m) {
            return new Count(count.total() + m.by(), count.events() + 1);
        }
        return new Count(0, count.events() + 1);
    }

    /** Marks. */
    @EntityHandler
    public Reply on(Mark mark) {
        state.persist(new Marked(mark.by()));
        return reply();
    }

    /** Resets, then passivates. */
    @EntityHandler
    public Reply on(Reset reset) {
        state.persist(new Cleared());
        context.passivate();
        return reply();
    }

    /** Reads. */
    @EntityHandler
    public Reply on(Look look) {
        return reply();
    }

    /** Passivates. */
    @EntityHandler
    public Reply on(Rest rest) {
        context.passivate();
        return reply();
    }

    private Reply reply() {
        return new Reply(state.get().total(), state.lastSequenceNr(), context.nodeName());
    }

    /** The events. */
    public sealed interface Event permits Marked, Cleared {}

    /** Version 2 of a mark: version 1 called its field "count". @param by how much */
    @StoredEvent(name = "marked", version = 2)
    public record Marked(long by) implements Event {}

    /** Back to zero. */
    public record Cleared() implements Event {}

    /** The state. @param total the tally @param events how many events made it */
    public record Count(long total, long events) {}

    /** Mark. @param by how much */
    public record Mark(long by) {}

    /** Reset. */
    public record Reset() {}

    /** Read. */
    public record Look() {}

    /** Passivate. */
    public record Rest() {}

    /** Answer. @param total the tally @param lastSequenceNr the last event @param node where it runs */
    public record Reply(long total, long lastSequenceNr, String node) {}

    /** The version 1 marks, with "count" for "by". */
    public static final class MarkedV1 implements dev.sharding.spi.EventUpcaster {

        @Override
        public String eventName() {
            return "marked";
        }

        @Override
        public int fromVersion() {
            return 1;
        }

        @Override
        public Map<String, Object> upcast(Map<String, Object> fields) {
            fields.put("by", fields.remove("count"));
            return fields;
        }
    }
}
