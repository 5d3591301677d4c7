package dev.sharding.autoconfigure;

/**
 * Turns what the core found wrong with an entity class into a startup report that says how to fix it.
 */
final class EntityDefinitionProblems {

    private EntityDefinitionProblems() {}

    /**
     * The report of an invalid entity class.
     *
     * @param entityClass the class
     * @param problem what the core found wrong
     * @return the exception to throw
     */
    static ShardingConfigurationException of(Class<?> entityClass, IllegalArgumentException problem) {
        String message = String.valueOf(problem.getMessage());
        String action;
        if (message.contains("has no @EntityHandler method")) {
            action = "Annotate a method of " + entityClass.getSimpleName() + " that takes a message with "
                    + "@EntityHandler: one per message type, returning the reply (or void for none).";
        } else if (message.startsWith("Two @EntityHandler methods")) {
            action = "Keep one @EntityHandler method per message type in " + entityClass.getSimpleName()
                    + "; a message goes to the handler of its most specific type.";
        } else if (message.contains("must take exactly one parameter") || message.contains("must not be static")) {
            action = "Make every @EntityHandler method of " + entityClass.getSimpleName() + " an instance method "
                    + "that takes one parameter, the message.";
        } else if (message.contains("shard id function")) {
            action = "Declare the shard id function named in @ShardedEntity(shardIdFunction = ...) of "
                    + entityClass.getSimpleName() + " as a bean, or give it a no-argument constructor.";
        } else if (message.contains("no-arg constructor") || message.contains("@InitialState")) {
            action = "Declare in " + entityClass.getSimpleName() + " a static method annotated @InitialState that "
                    + "takes no parameter and returns the state of an entity never seen, or give the state class "
                    + "a no-arg constructor.";
        } else {
            action = "Fix the entity class " + entityClass.getName() + " as the description says.";
        }
        return new ShardingConfigurationException(
                "The @ShardedEntity class " + entityClass.getName() + " is not a valid entity: " + message,
                action,
                problem);
    }
}
