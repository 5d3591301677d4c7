package dev.sharding.autoconfigure;

import dev.sharding.UndecodableTypeException;
import java.util.Map;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains which declared message, reply or state classes would not survive the trip to another node, and how to
 * write them so that they do.
 */
class UndecodableTypeFailureAnalyzer extends AbstractFailureAnalyzer<UndecodableTypeException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UndecodableTypeException cause) {
        StringBuilder description = new StringBuilder("Messages, replies and entity state cross the network and go "
                + "to the store as Jackson documents, and these classes do not come back as they were sent:");
        for (Map.Entry<Class<?>, String> problem : cause.problems().entrySet()) {
            description
                    .append("\n\n    ")
                    .append(problem.getKey().getName())
                    .append(": ")
                    .append(problem.getValue());
        }
        description.append("\n\nOn one node they may seem to work: a message to an entity on the same node is not "
                + "encoded. Sent to another node, or read back from the store, they fail or lose data.");
        return new FailureAnalysis(
                description.toString(),
                "Make each class a record of data (strings, numbers, enums, collections, other records), or give it "
                        + "a constructor Jackson can use (@JsonCreator) and getters for every field. Declare fields "
                        + "with concrete types, not Object; mark derived fields @JsonIgnore or transient. Key each Map by "
                        + "String, a number, an enum or UUID: a record or other class as a key is written as its "
                        + "toString() and cannot be read back.",
                cause);
    }
}
