package dev.sharding.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link ShardingConfigurationException} as its description and action, instead of a stack trace.
 */
class ShardingConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<ShardingConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ShardingConfigurationException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
