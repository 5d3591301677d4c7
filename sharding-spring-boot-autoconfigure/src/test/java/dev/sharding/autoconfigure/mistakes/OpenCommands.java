package dev.sharding.autoconfigure.mistakes;

import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/** A handler of an interface that is not sealed, whose implementations are not declared. */
@ShardedEntity
public class OpenCommands {

    /**
     * Handles every command.
     *
     * @param command the command
     * @return its name
     */
    @EntityHandler
    public String on(Command command) {
        return command.getClass().getSimpleName();
    }

    /** Commands; not sealed. */
    public interface Command {}

    /** A command. */
    public record Add(int amount) implements Command {}
}
