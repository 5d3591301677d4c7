package dev.sharding.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports the {@code sharding.*} properties no setting has (a misspelt name, which would otherwise be ignored), each
 * with where it was set and, when one is close, the property meant. Runs before Spring Boot's own report of unbound
 * properties, which names none.
 */
class UnknownShardingPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException>
        implements Ordered {

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        List<String> unknown = new ArrayList<>();
        List<String> meant = new ArrayList<>();
        for (ConfigurationProperty property : cause.getUnboundProperties()) {
            String name = property.getName().toString();
            if (!name.startsWith("sharding.")) {
                continue;
            }
            unknown.add("    " + name + (property.getOrigin() == null ? "" : " (from " + property.getOrigin() + ")"));
            String closest = ShardingPropertyNames.closest(name);
            if (closest != null) {
                meant.add("    " + name + ": did you mean " + closest + "?");
            }
        }
        if (unknown.isEmpty()) {
            return null;
        }
        StringBuilder description = new StringBuilder("The sharding node has no setting for ")
                .append(unknown.size() == 1 ? "this property" : "these properties")
                .append(", so it would ignore ")
                .append(unknown.size() == 1 ? "it" : "them")
                .append(":\n");
        unknown.forEach(line -> description.append(line).append('\n'));
        StringBuilder action = new StringBuilder();
        if (!meant.isEmpty()) {
            meant.forEach(line -> action.append(line).append('\n'));
        }
        action.append("Correct or remove ")
                .append(unknown.size() == 1 ? "it" : "them")
                .append(". The sharding properties are listed in the documentation (Configuration), and in the")
                .append(" configuration metadata an IDE completes them from.");
        return new FailureAnalysis(description.toString().stripTrailing(), action.toString(), cause);
    }
}
