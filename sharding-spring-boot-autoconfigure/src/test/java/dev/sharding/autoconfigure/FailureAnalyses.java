package dev.sharding.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * What a user sees when the application fails to start: the analysis of the first registered
 * {@link FailureAnalyzer} (ours and Spring Boot's, as {@code spring.factories} lists them) that explains the failure.
 */
final class FailureAnalyses {

    private FailureAnalyses() {}

    static @Nullable FailureAnalysis analyze(Throwable failure, Environment environment) {
        SpringFactoriesLoader.FailureHandler skipThoseNeedingMore = (type, name, problem) -> {};
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
                .load(
                        FailureAnalyzer.class,
                        SpringFactoriesLoader.ArgumentResolver.of(Environment.class, environment),
                        skipThoseNeedingMore);
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        return null;
    }
}
