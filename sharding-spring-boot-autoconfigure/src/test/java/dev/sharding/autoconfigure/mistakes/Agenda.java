package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.EntityState;
import dev.sharding.InitialState;
import dev.sharding.ShardedEntity;
import java.util.HashMap;
import java.util.Map;

/** Keeps a state whose map is keyed by a record: Jackson writes such a key with toString() and cannot read it back. */
@ShardedEntity
public class Agenda {

    private final EntityState<Days> days;

    /**
     * Creates the entity.
     *
     * @param days its state
     */
    public Agenda(EntityState<Days> days) {
        this.days = days;
    }

    @InitialState
    static Days none() {
        return new Days(Map.of());
    }

    /**
     * Books a slot.
     *
     * @param slot the message
     * @return who booked it
     */
    @EntityHandler
    public String on(Slot slot) {
        Map<Slot, String> next = new HashMap<>(days.get().owners());
        next.put(slot, "someone");
        days.set(new Days(next));
        return "someone";
    }

    /**
     * The message, and the key of the state's map.
     *
     * @param day the day
     * @param hour the hour
     */
    public record Slot(int day, int hour) {}

    /**
     * The state.
     *
     * @param owners who booked each slot
     */
    public record Days(Map<Slot, String> owners) {}
}
