package dev.sharding.autoconfigure.greeting;

import dev.sharding.EntityContext;
import dev.sharding.EntityHandler;
import dev.sharding.ShardedEntity;

/**
 * A test entity registered through {@code @Import}: greets with a salutation from another bean.
 */
@ShardedEntity
public class Greeter {

    private final EntityContext context;

    private final Salutation salutation;

    private int greetings;

    /**
     * Creates the entity.
     *
     * @param context its context
     * @param salutation the bean that says hello
     */
    public Greeter(EntityContext context, Salutation salutation) {
        this.context = context;
        this.salutation = salutation;
    }

    /**
     * Greets.
     *
     * @param greet the message
     * @return the greeting
     */
    @EntityHandler
    public Greeting on(Greet greet) {
        this.greetings++;
        return new Greeting(
                this.salutation.text() + " " + greet.name() + " from " + this.context.typeName() + "/"
                        + this.context.entityId() + " on " + this.context.nodeName(),
                this.greetings);
    }

    /**
     * Asks for a greeting.
     *
     * @param name who to greet
     */
    public record Greet(String name) {}

    /**
     * A greeting.
     *
     * @param text the text
     * @param count how many greetings this entity has given
     */
    public record Greeting(String text, int count) {}
}
