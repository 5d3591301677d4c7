package dev.sharding;

import java.io.Serial;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A declared message, reply or state class does not cross the network intact with the node's codec: a value of it
 * would fail, or change, once sent to an entity on another node, or once its stored state is read back. Thrown when
 * a node is built, so that such a class fails at startup on one node rather than later in a cluster.
 */
public class UndecodableTypeException extends ShardingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient Map<Class<?>, String> problems;

    /**
     * Creates the exception.
     *
     * @param problems what goes wrong, per class
     */
    public UndecodableTypeException(Map<Class<?>, String> problems) {
        super("Message or state classes that the codec cannot carry between nodes: "
                + problems.entrySet().stream()
                        .map(e -> e.getKey().getName() + ": " + e.getValue())
                        .collect(Collectors.joining("; ")));
        this.problems = Map.copyOf(problems);
    }

    /**
     * What goes wrong, per class.
     *
     * @return a description per failing class
     */
    public Map<Class<?>, String> problems() {
        return problems;
    }
}
